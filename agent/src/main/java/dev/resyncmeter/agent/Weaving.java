package dev.resyncmeter.agent;

import dev.resyncmeter.agent.clientjava.controller.ControllerInstrumentation;
import dev.resyncmeter.agent.clientjava.informer.InformerInstrumentation;
import dev.resyncmeter.agent.clientjava.request.RequestInstrumentation;
import dev.resyncmeter.agent.clientjava.workqueue.WorkQueueInstrumentation;
import dev.resyncmeter.agent.fabric8.Fabric8Instrumentation;
import dev.resyncmeter.agent.fabric8.request.Fabric8RequestInstrumentation;
import dev.resyncmeter.agent.josdk.JosdkInstrumentation;
import dev.resyncmeter.collector.ResyncMetrics;
import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.dynamic.scaffold.MethodGraph;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.utility.JavaModule;

/**
 * Everything of ByteBuddy's: the instrumentation units and the transformer that weaves them. Only the
 * agent's start thread loads this class, so {@code premain} itself loads none of ByteBuddy.
 */
final class Weaving {

  /** The handler interfaces of the instrumented libraries: their implementations are woven wherever they are. */
  private static final List<String> RESOURCE_EVENT_HANDLERS =
      List.of("io.kubernetes.client.informer.ResourceEventHandler", Fabric8Instrumentation.RESOURCE_EVENT_HANDLER);

  /** Each library's units, in the order of {@link Library}. */
  static final Map<Library, List<InstrumentationUnit>> UNITS =
      Map.of(
          Library.CLIENT_JAVA, List.of(new InformerInstrumentation(), new WorkQueueInstrumentation(), new ControllerInstrumentation(), new RequestInstrumentation()),
          Library.FABRIC8, List.of(new Fabric8Instrumentation(), new Fabric8RequestInstrumentation()),
          Library.JOSDK, List.of(new JosdkInstrumentation()));

  static List<InstrumentationUnit> allUnits() {
    List<InstrumentationUnit> all = new ArrayList<>();
    for (Library library : Library.values()) {
      all.addAll(UNITS.get(library));
    }
    return all;
  }

  static final int RETRANSFORM_BATCH = 20;
  static final long RETRANSFORM_PAUSE_MILLIS = 20;

  private Weaving() {}

  /** Exports whether each unit counts ({@code resync_meter_instrumentation_active}). */
  static void publishUnits(ResyncMetrics metrics) {
    for (InstrumentationUnit unit : allUnits()) {
      UnitSwitch unitSwitch = unit.unitSwitch();
      metrics.instrumentation(unitSwitch.component(), () -> !unitSwitch.isOff());
    }
  }

  /**
   * Installs the units on {@code instrumentation}. With {@code retransformLoaded}, the matching classes
   * already loaded are woven too (attached to a running JVM: all of them); without, the start weaves
   * the few that matter itself ({@link #weaveEarlyHandlers}), and no pass over every loaded class is
   * made.
   */
  static void install(Instrumentation instrumentation, boolean retransformLoaded) {
    // premain switched off Nexus and Unsafe class injection before (ResyncMeterAgent.disableUnsafeProbes).
    // Advice rewrites only methods a class declares, so no method graph of its super types is needed;
    // building one reads every interface's class file, and another agent's injected interfaces
    // (OpenTelemetry's VirtualFieldAccessor) have none, which failed the whole class.
    ByteBuddy byteBuddy = new ByteBuddy().with(MethodGraph.Compiler.ForDeclaredMethods.INSTANCE);
    AgentBuilder builder =
        new AgentBuilder.Default(byteBuddy)
            // Advice that a retransformation can weave, too (the early handlers, a JVM attached to).
            .disableClassFormatChanges()
            .with(AgentBuilder.TypeStrategy.Default.DECORATE)
            .with(new FaultListener())
            // By name only: a check of the class's modifiers (isSynthetic, say) would parse the class
            // file of every class the host loads, in every class loader.
            .ignore(IGNORED);
    if (retransformLoaded) {
      builder =
          builder
              .with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
              // Attached to a running host: retransformation stops the world for each batch, so the
              // loaded classes go in small batches with a pause between them.
              .with(AgentBuilder.RedefinitionStrategy.BatchAllocator.ForFixedSize.ofSize(RETRANSFORM_BATCH))
              // Classes the host loads while the weaving is being installed: a class defined after the
              // first look at the loaded classes is found by the next one.
              .with(AgentBuilder.RedefinitionStrategy.DiscoveryStrategy.Reiterating.INSTANCE)
              .with(AgentBuilder.RedefinitionStrategy.Listener.Pausing.of(RETRANSFORM_PAUSE_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS));
    }
    for (InstrumentationUnit unit : allUnits()) {
      builder = unit.install(builder);
    }
    builder.installOn(instrumentation);
  }

  /**
   * Classes no unit could match, told by name alone, so without reading a class file: the JDK's, the
   * agent's own, client-java's generated API and model classes, and libraries that never hold an
   * informer's handler (client-java's own dependencies among them). Not client-java's informer, util
   * or extended packages, no framework that builds on client-java (Spring Cloud Kubernetes has
   * handlers), and nothing of the host's own.
   */
  static final NamePrefixes IGNORED =
      new NamePrefixes(
          // the two classes of these packages that a unit weaves: client-java's API client and OkHttp's call
          List.of(RequestInstrumentation.API_CLIENT, RequestInstrumentation.REAL_CALL),
          "java.",
          "javax.",
          "jdk.",
          "sun.",
          "com.sun.",
          "dev.resyncmeter.agent.",
          "dev.resyncmeter.collector.",
          // thousands of generated models and API classes, none of them a handler
          "io.kubernetes.client.openapi.",
          "io.kubernetes.client.proto.",
          "io.kubernetes.client.custom.",
          // thousands of fabric8 model classes, none of them a handler
          "io.fabric8.kubernetes.api.model.",
          // client-java's own dependencies
          "okhttp3.",
          "okio.",
          "kotlin.",
          "kotlinx.",
          "com.google.gson.",
          "io.gsonfire.",
          "com.google.protobuf.",
          "org.apache.commons.",
          "org.bouncycastle.",
          "org.jose4j.",
          "org.yaml.snakeyaml.",
          "io.prometheus.",
          "io.github.bucket4j.",
          "com.github.benmanes.caffeine.",
          "io.swagger.",
          "com.fasterxml.jackson.",
          "org.slf4j.",
          // other libraries a controller's class path often holds
          "net.bytebuddy.",
          "io.micrometer.",
          "com.google.common.",
          "com.google.errorprone.",
          "com.google.thirdparty.",
          "org.checkerframework.",
          "org.jetbrains.annotations.",
          "jakarta.",
          "ch.qos.logback.",
          "org.apache.logging.log4j.",
          "io.netty.",
          "io.vertx.",
          "tools.jackson.",
          "scala.",
          "groovy.",
          "org.codehaus.groovy.");

  /** Matches a type whose name starts with one of the prefixes; reads nothing but the name. */
  static final class NamePrefixes extends ElementMatcher.Junction.AbstractBase<TypeDescription> {
    private final List<String> except;
    private final String[] prefixes;

    NamePrefixes(List<String> except, String... prefixes) {
      this.except = except;
      this.prefixes = prefixes;
    }

    @Override
    public boolean matches(TypeDescription type) {
      String name = type.getName();
      if (except.contains(name)) {
        return false;
      }
      for (String prefix : prefixes) {
        if (name.startsWith(prefix)) {
          return true;
        }
      }
      return false;
    }

    @Override
    public String toString() {
      return "nameStartsWithAnyOf(" + String.join(", ", prefixes) + ") except " + except;
    }
  }

  /** The units' switches (for the start gate: a start too late switches them off). */
  static List<UnitSwitch> unitSwitches() {
    List<UnitSwitch> switches = new ArrayList<>();
    for (InstrumentationUnit unit : allUnits()) {
      switches.add(unit.unitSwitch());
    }
    return switches;
  }

  /**
   * Weaves the handler classes among those the host loaded while the weaving was being installed (the
   * installation's own retransformation may have missed the last of them): they are retransformed
   * now, before any informer class loads. A class still being defined is waited for, briefly.
   */
  static void weaveEarlyHandlers(Instrumentation instrumentation, List<StartGate.Passed> passed) {
    Map<ClassLoader, Set<String>> wanted = new IdentityHashMap<>();
    for (StartGate.Passed type : passed) {
      wanted.computeIfAbsent(type.loader, loader -> new HashSet<>()).add(type.name.replace('/', '.'));
    }
    List<Class<?>> handlers = new ArrayList<>();
    for (int attempt = 0; !wanted.isEmpty() && attempt < 20; attempt++) {
      if (attempt > 0) {
        sleep(10);
      }
      for (Class<?> type : instrumentation.getAllLoadedClasses()) {
        Set<String> names = wanted.get(type.getClassLoader());
        if (names != null && names.remove(type.getName())) {
          if (names.isEmpty()) {
            wanted.remove(type.getClassLoader());
          }
          if (!type.isInterface() && reachesHandler(type) && instrumentation.isModifiableClass(type)) {
            handlers.add(type);
          }
        }
      }
    }
    for (Class<?> handler : handlers) {
      try {
        instrumentation.retransformClasses(handler);
      } catch (Throwable t) {
        AgentFaults.record("instrumentation", new IllegalStateException("cannot instrument " + handler.getName() + ": " + t, t));
      }
    }
  }

  /** Whether a loaded class has a library's handler interface among its super types (by name). */
  static boolean reachesHandler(Class<?> type) {
    if (type == null || type.getName().startsWith("java.")) {
      return false;
    }
    if (RESOURCE_EVENT_HANDLERS.contains(type.getName())) {
      return true;
    }
    if (reachesHandler(type.getSuperclass())) {
      return true;
    }
    for (Class<?> implemented : type.getInterfaces()) {
      if (reachesHandler(implemented)) {
        return true;
      }
    }
    return false;
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Publishes {@code resync_meter_info} for each instrumented library the system class path holds. */
  static void publishSystemLibraries(ResyncMetrics metrics) {
    for (Library library : Library.values()) {
      String version = library.version(ClassLoader.getSystemClassLoader());
      if (version != null) {
        FaultListener.publishInfo(metrics, library, version);
      }
    }
  }

  /**
   * Counts and reports instrumentation faults, and publishes {@code resync_meter_info} when a class of
   * a library is first woven (the library may sit in a loader the agent saw only now).
   */
  static final class FaultListener extends AgentBuilder.Listener.Adapter {
    private static final Set<Library> INFO_PUBLISHED = java.util.EnumSet.noneOf(Library.class);

    static void publishInfo(ResyncMetrics metrics, Library library, String version) {
      synchronized (INFO_PUBLISHED) {
        if (!INFO_PUBLISHED.add(library)) {
          return;
        }
      }
      metrics.info(ResyncMeterAgent.version(), library.label(), version);
    }

    private static boolean published(Library library) {
      synchronized (INFO_PUBLISHED) {
        return INFO_PUBLISHED.contains(library);
      }
    }

    @Override
    public void onTransformation(
        TypeDescription type, ClassLoader loader, JavaModule module, boolean loaded, DynamicType dynamicType) {
      Library library = Library.ofWovenClass(type.getName());
      if (library != null && !published(library)) {
        String version = library.version(loader);
        ResyncMetrics metrics = AgentMetrics.get();
        if (version != null && metrics != null) {
          publishInfo(metrics, library, version);
        }
      }
    }

    /**
     * A class a unit gave advice to could not be woven: that unit would count with a part missing, so
     * it switches off, and says so in its one line. Anything else failing here is a fault of the
     * agent's matching (matchers never fail on a class they cannot fully read: see HasSuperTypeNamed).
     */
    @Override
    public void onError(String typeName, ClassLoader loader, JavaModule module, boolean loaded, Throwable throwable) {
      List<UnitSwitch> units = LayoutCheckedAdvice.takeWeavingUnits();
      if (units.isEmpty()) {
        AgentFaults.record("instrumentation", new IllegalStateException("cannot instrument " + typeName + ": " + throwable, throwable));
        return;
      }
      for (UnitSwitch unit : units) {
        AgentFaults.count("instrumentation");
        unit.turnOff("could not weave " + typeName + " (" + throwable + ")");
      }
    }

    @Override
    public void onComplete(String typeName, ClassLoader loader, JavaModule module, boolean loaded) {
      LayoutCheckedAdvice.takeWeavingUnits();
    }
  }
}
