package dev.resyncmeter.agent;

import dev.resyncmeter.collector.ResyncMetrics;
import java.io.IOException;
import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The weaving of the parts to instrument: their rules, the transformer that applies them, and what it
 * publishes. Only the agent's start thread loads this class, so {@code premain} itself loads none of
 * ByteBuddy; the weaving loads ByteBuddy only when a class was not woven ahead of time.
 */
final class Weaving {

  static final int RETRANSFORM_BATCH = 20;
  static final long RETRANSFORM_PAUSE_MILLIS = 20;

  /** The parts to weave: every part but those the user disabled. */
  private final List<Part> parts;
  /** The agent's version, for {@code resync_meter_info}. */
  private final String agentVersion;
  /** The handler interfaces of those parts, whose implementations are woven wherever they are. */
  private final SuperTypes handlerTypes;

  Weaving(List<Part> parts, String agentVersion) {
    this.parts = List.copyOf(parts);
    this.agentVersion = agentVersion;
    List<String> handlerInterfaces = new ArrayList<>();
    for (Part part : parts) {
      if (part.handlerInterface() != null && !handlerInterfaces.contains(part.handlerInterface())) {
        handlerInterfaces.add(part.handlerInterface());
      }
    }
    this.handlerTypes = new SuperTypes(handlerInterfaces);
  }

  /**
   * Exports whether each woven part counts ({@code resync_meter_instrumentation_active}), and
   * {@code resync_meter_info} for each instrumented library the system class path holds. A disabled
   * part has no series: it is not woven, and 0 would say that it switched itself off.
   */
  void publish(ResyncMetrics metrics) {
    for (Part part : parts) {
      UnitSwitch unitSwitch = part.unitSwitch();
      metrics.instrumentation(unitSwitch.component(), () -> !unitSwitch.isOff());
    }
    for (Library library : Parts.libraries()) {
      String version = library.version(ClassLoader.getSystemClassLoader());
      if (version != null) {
        FaultListener.publishInfo(metrics, library, version, agentVersion);
      }
    }
  }

  /**
   * Installs the parts' weaving on {@code instrumentation}. With {@code retransformLoaded}, the matching
   * classes already loaded are woven too (attached to a running JVM: all of them); without, the start
   * weaves the few that matter itself ({@link #weaveEarlyHandlers}), and no pass over every loaded
   * class is made.
   */
  void install(Instrumentation instrumentation, boolean retransformLoaded) throws IOException {
    // premain switched off Nexus and Unsafe class injection before (see its disableUnsafeProbes).
    Weaver weaver = weaver(PrewovenClasses.load());
    instrumentation.addTransformer(weaver, true);
    if (retransformLoaded) {
      // Attached to a running host: retransformation stops the world for each batch, so the loaded
      // classes go in small batches with a pause between them.
      weaver.retransformLoaded(instrumentation, RETRANSFORM_BATCH, RETRANSFORM_PAUSE_MILLIS);
    }
  }

  /**
   * The transformer that weaves the parts, with the classes woven ahead of time. It selects classes by
   * the parts' own descriptions; their weaving (ByteBuddy's matchers and advice) is built only when a
   * class was not woven ahead of time.
   */
  Weaver weaver(PrewovenClasses prewoven) {
    List<WeavingRules.Rule> selection = new ArrayList<>();
    for (Part part : parts) {
      selection.add(WeavingRules.Rule.of(part));
    }
    // Ignored by name only: a check of the class's modifiers (isSynthetic, say) would parse the class
    // file of every class the host loads, in every class loader.
    return new Weaver(IGNORED, selection, this::rules, prewoven, new FaultListener(agentVersion));
  }

  /**
   * The parts' weaving rules: loads their units, and ByteBuddy's matchers with them. A part whose
   * weaving cannot be made switches off (its classes woven ahead of time would count without the
   * rest), and the others go on.
   */
  List<WeavingRules.Rule> rules() {
    List<WeavingRules.Rule> all = new ArrayList<>();
    for (Part part : parts) {
      WeavingRules rules = new WeavingRules().forPart(part.component());
      try {
        part.weaving().install(rules);
        all.addAll(rules.rules());
      } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
        AgentFaults.count("instrumentation");
        part.unitSwitch().turnOff("its weaving could not be made (" + e + ")");
      }
    }
    return all;
  }

  /**
   * Classes no unit could match, told by name alone, so without reading a class file: the JDK's, the
   * agent's own, the packages each library declares free of handlers (generated API and model classes,
   * its own dependencies), and libraries that never hold an informer's handler; but never a class a
   * part weaves by name. Not client-java's informer, util or extended packages, no framework that
   * builds on client-java (Spring Cloud Kubernetes has handlers), and nothing of the host's own.
   */
  static final NamePrefixes IGNORED = ignored();

  private static NamePrefixes ignored() {
    List<String> prefixes =
        new ArrayList<>(
            List.of(
                "java.",
                "javax.",
                "jdk.",
                "sun.",
                "com.sun.",
                "dev.resyncmeter.agent.",
                "dev.resyncmeter.collector.",
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
                "org.codehaus.groovy."));
    for (Library library : Parts.libraries()) {
      for (String prefix : library.ignoredPackages()) {
        if (!prefixes.contains(prefix)) {
          prefixes.add(prefix);
        }
      }
    }
    NamePrefixes ignored = new NamePrefixes(Set.of(), prefixes.toArray(new String[0]));
    // the classes of these packages that a part weaves by name: client-java's API client and OkHttp's call
    Set<String> except = new HashSet<>();
    for (Part part : Parts.ALL) {
      for (String name : part.wovenByName()) {
        if (ignored.startsWithAny(name)) {
          except.add(name);
        }
      }
    }
    return new NamePrefixes(except, prefixes.toArray(new String[0]));
  }

  /** Matches a type whose name starts with one of the prefixes; reads nothing but the name. */
  static final class NamePrefixes {
    private final Set<String> except;
    private final String[] prefixes;

    NamePrefixes(Set<String> except, String... prefixes) {
      this.except = Set.copyOf(except);
      this.prefixes = prefixes;
    }

    boolean ignores(String name) {
      return !except.contains(name) && startsWithAny(name);
    }

    boolean startsWithAny(String name) {
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

  /** The switches of the parts woven (for the start gate: a start too late switches them off). */
  List<UnitSwitch> unitSwitches() {
    List<UnitSwitch> switches = new ArrayList<>();
    for (Part part : parts) {
      switches.add(part.unitSwitch());
    }
    return switches;
  }

  /**
   * Weaves the handler classes among those the host loaded while the weaving was being installed (the
   * installation's own retransformation may have missed the last of them): they are retransformed
   * now, before any informer class loads. A class still being defined is waited for, briefly.
   */
  void weaveEarlyHandlers(Instrumentation instrumentation, List<StartGate.Passed> passed) {
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
          if (handlerTypes.implementedBy(type) != 0 && instrumentation.isModifiableClass(type)) {
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

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Counts and reports instrumentation faults, and publishes {@code resync_meter_info} when a class of
   * a library is first woven (the library may sit in a loader the agent saw only now).
   */
  static final class FaultListener {
    private static final Set<Library> INFO_PUBLISHED = new HashSet<>();

    /**
     * The units whose advice this thread is weaving into the class it transforms now. ByteBuddy weaves
     * after the transformers return and a failure comes to this listener, on this thread: the failure
     * is then theirs.
     */
    private static final ThreadLocal<List<UnitSwitch>> WEAVING = new ThreadLocal<>();

    /** {@code unit} gives its advice to the class this thread transforms now. */
    static void weaving(UnitSwitch unit) {
      List<UnitSwitch> units = WEAVING.get();
      if (units == null) {
        units = new ArrayList<>(1);
        WEAVING.set(units);
      }
      units.add(unit);
    }

    /** The units that gave advice to the class this thread transforms now; forgets them (once per class). */
    private static List<UnitSwitch> takeWeavingUnits() {
      List<UnitSwitch> units = WEAVING.get();
      if (units == null) {
        return List.of();
      }
      WEAVING.remove();
      return units;
    }

    private final String agentVersion;

    FaultListener(String agentVersion) {
      this.agentVersion = agentVersion;
    }

    static void publishInfo(ResyncMetrics metrics, Library library, String version, String agentVersion) {
      synchronized (INFO_PUBLISHED) {
        if (!INFO_PUBLISHED.add(library)) {
          return;
        }
      }
      metrics.info(agentVersion, library.label(), version);
    }

    private static boolean published(Library library) {
      synchronized (INFO_PUBLISHED) {
        return INFO_PUBLISHED.contains(library);
      }
    }

    /** {@code typeName}, of {@code loader}, was woven. */
    void woven(String typeName, ClassLoader loader) {
      Library library = Parts.libraryWeaving(typeName);
      if (library != null && !published(library)) {
        String version = library.version(loader);
        ResyncMetrics metrics = AgentMetrics.get();
        if (version != null && metrics != null) {
          publishInfo(metrics, library, version, agentVersion);
        }
      }
    }

    /**
     * A class a unit gave advice to could not be woven: that unit would count with a part missing, so
     * it switches off, and says so in its one line. Anything else failing here is a fault of the
     * agent's matching (matchers never fail on a class they cannot fully read: see HasSuperTypeNamed).
     */
    void failed(String typeName, Throwable throwable) {
      List<UnitSwitch> units = takeWeavingUnits();
      if (units.isEmpty()) {
        AgentFaults.record("instrumentation", new IllegalStateException("cannot instrument " + typeName + ": " + throwable, throwable));
        return;
      }
      for (UnitSwitch unit : units) {
        AgentFaults.count("instrumentation");
        unit.turnOff("could not weave " + typeName + " (" + throwable + ")");
      }
    }

    /** The transformation of a class ended, woven, failed or left alone. */
    void completed() {
      takeWeavingUnits();
    }
  }
}
