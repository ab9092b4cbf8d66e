package dev.resyncmeter.agent;

import static net.bytebuddy.matcher.ElementMatchers.isSynthetic;
import static net.bytebuddy.matcher.ElementMatchers.nameStartsWith;

import dev.resyncmeter.agent.clientjava.ClientJavaVersion;
import dev.resyncmeter.agent.clientjava.controller.ControllerInstrumentation;
import dev.resyncmeter.agent.clientjava.informer.InformerInstrumentation;
import dev.resyncmeter.agent.clientjava.workqueue.WorkQueueInstrumentation;
import dev.resyncmeter.collector.ResyncMetrics;
import java.lang.instrument.Instrumentation;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.dynamic.Nexus;
import net.bytebuddy.dynamic.loading.ClassInjector;
import net.bytebuddy.dynamic.scaffold.MethodGraph;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.utility.JavaModule;

/**
 * Everything of ByteBuddy's: the instrumentation units and the transformer that weaves them. Only the
 * agent's start thread loads this class, so {@code premain} itself loads none of ByteBuddy.
 */
final class Weaving {

  static final List<InstrumentationUnit> CLIENT_JAVA_UNITS =
      List.of(new InformerInstrumentation(), new WorkQueueInstrumentation(), new ControllerInstrumentation());

  private Weaving() {}

  /** Exports whether each unit counts ({@code resync_meter_instrumentation_active}). */
  static void publishUnits(ResyncMetrics metrics) {
    for (InstrumentationUnit unit : CLIENT_JAVA_UNITS) {
      UnitSwitch unitSwitch = unit.unitSwitch();
      metrics.instrumentation(unitSwitch.component(), () -> !unitSwitch.isOff());
    }
  }

  /**
   * Installs the units on {@code instrumentation} and weaves the matching classes already loaded (a
   * handler class the host loaded before, or everything when attached to a running JVM).
   */
  static void install(Instrumentation instrumentation) {
    // Advice needs neither Nexus (no type initializers to run) nor class injection. Left enabled, our
    // ByteBuddy probes both through sun.misc.Unsafe, and Java 24+ prints WARNING lines naming the agent
    // on the host's stderr. Both keys are relocated with ByteBuddy: the host's own ByteBuddy never
    // reads them.
    System.setProperty(Nexus.PROPERTY, "true");
    if (System.getProperty(ClassInjector.UsingUnsafe.SAFE_PROPERTY) == null) {
      System.setProperty(ClassInjector.UsingUnsafe.SAFE_PROPERTY, "true");
    }
    // Advice rewrites only methods a class declares, so no method graph of its super types is needed;
    // building one reads every interface's class file, and another agent's injected interfaces
    // (OpenTelemetry's VirtualFieldAccessor) have none, which failed the whole class.
    ByteBuddy byteBuddy = new ByteBuddy().with(MethodGraph.Compiler.ForDeclaredMethods.INSTANCE);
    AgentBuilder builder =
        new AgentBuilder.Default(byteBuddy)
            .disableClassFormatChanges()
            .with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
            // Classes the host loads while the weaving is being installed: a class defined after the
            // first look at the loaded classes is found by the next one.
            .with(AgentBuilder.RedefinitionStrategy.DiscoveryStrategy.Reiterating.INSTANCE)
            .with(AgentBuilder.TypeStrategy.Default.DECORATE)
            .with(new FaultListener())
            .ignore(IGNORED.or(isSynthetic()));
    for (InstrumentationUnit unit : CLIENT_JAVA_UNITS) {
      builder = unit.install(builder);
    }
    builder.installOn(instrumentation);
  }

  /**
   * Classes no unit could match, by name alone (so without reading a class file): the JDK's, the
   * agent's own, and libraries that never hold an informer's handler. Not client-java's informer or
   * extended packages, and nothing of the host's own.
   */
  static final ElementMatcher.Junction<TypeDescription> IGNORED = ignoredPrefixes(
      "java.",
      "javax.",
      "jdk.",
      "sun.",
      "com.sun.",
      "dev.resyncmeter.agent.",
      "dev.resyncmeter.collector.",
      // thousands of generated models, none of them a handler
      "io.kubernetes.client.openapi.models.");

  private static ElementMatcher.Junction<TypeDescription> ignoredPrefixes(String... prefixes) {
    ElementMatcher.Junction<TypeDescription> matcher = nameStartsWith(prefixes[0]);
    for (int i = 1; i < prefixes.length; i++) {
      matcher = matcher.or(nameStartsWith(prefixes[i]));
    }
    return matcher;
  }

  /** The client-java version of the system class path, published now; null when it has none. */
  static String publishSystemClientJava(ResyncMetrics metrics) {
    String clientJava = ClientJavaVersion.of(ClassLoader.getSystemClassLoader());
    if (clientJava != null) {
      FaultListener.publishInfo(metrics, clientJava);
    }
    return clientJava;
  }

  /**
   * Counts and reports instrumentation faults, and publishes {@code resync_meter_info} when a
   * client-java class is first woven (client-java may sit in a loader the agent saw only now).
   */
  static final class FaultListener extends AgentBuilder.Listener.Adapter {
    private static final AtomicBoolean INFO_PUBLISHED = new AtomicBoolean();

    static void publishInfo(ResyncMetrics metrics, String clientJavaVersion) {
      if (INFO_PUBLISHED.compareAndSet(false, true)) {
        metrics.info(ResyncMeterAgent.version(), "client-java", clientJavaVersion);
      }
    }

    @Override
    public void onTransformation(
        TypeDescription type, ClassLoader loader, JavaModule module, boolean loaded, DynamicType dynamicType) {
      if (!INFO_PUBLISHED.get() && type.getName().startsWith("io.kubernetes.client.informer.")) {
        String clientJava = ClientJavaVersion.of(loader);
        ResyncMetrics metrics = AgentMetrics.get();
        if (clientJava != null && metrics != null) {
          publishInfo(metrics, clientJava);
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
