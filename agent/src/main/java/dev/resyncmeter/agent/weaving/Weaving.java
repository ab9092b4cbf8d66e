package dev.resyncmeter.agent.weaving;

import dev.resyncmeter.agent.api.Library;
import dev.resyncmeter.agent.api.Part;
import dev.resyncmeter.agent.api.WeavingRules;
import dev.resyncmeter.agent.runtime.AgentFaults;
import dev.resyncmeter.agent.runtime.UnitSwitch;
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
public final class Weaving {

  static final int RETRANSFORM_BATCH = 20;
  static final long RETRANSFORM_PAUSE_MILLIS = 20;

  /** Every part the agent knows, woven or not. */
  private final List<Part> known;
  /** The parts to weave: every part but those the user disabled. */
  private final List<Part> parts;
  /** The agent's version, for {@code resync_meter_info}. */
  private final String agentVersion;
  /**
   * Whether the handler classes are woven (after an attach): a listener thread that runs already never
   * picks up its woven loop, so the handlers it calls are woven instead. Started with the JVM, the
   * library's own call sites of the handler are woven (ahead of time), and no handler class is.
   */
  private final boolean handlerClasses;
  /** The handler interfaces of those parts, whose implementations are woven wherever they are. */
  private final SuperTypes handlerTypes;

  /** Weaves {@code parts}, among the {@code known} parts, as the JVM's start does (no handler classes). */
  public Weaving(List<Part> known, List<Part> parts, String agentVersion) {
    this(known, parts, agentVersion, false);
  }

  /** Weaves {@code parts}, among the {@code known} parts; with {@code handlerClasses}, as after an attach. */
  public Weaving(List<Part> known, List<Part> parts, String agentVersion, boolean handlerClasses) {
    this.known = List.copyOf(known);
    this.parts = List.copyOf(parts);
    this.agentVersion = agentVersion;
    this.handlerClasses = handlerClasses;
    List<String> handlerInterfaces = new ArrayList<>();
    for (Part part : parts) {
      if (handlerClasses && part.handlerInterface() != null && !handlerInterfaces.contains(part.handlerInterface())) {
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
  public void publish(ResyncMetrics metrics) {
    for (Part part : parts) {
      UnitSwitch unitSwitch = part.unitSwitch();
      metrics.instrumentation(unitSwitch.component(), () -> !unitSwitch.isOff());
    }
    for (Library library : Library.of(known)) {
      String version = library.version(ClassLoader.getSystemClassLoader());
      if (version != null) {
        WeavingListener.publishInfo(metrics, library, version, agentVersion);
      }
    }
  }

  /**
   * Installs the parts' weaving on {@code instrumentation}. With {@code retransformLoaded}, the matching
   * classes already loaded are woven too (attached to a running JVM: all of them); without, the start
   * weaves the few that matter itself ({@link #weaveEarlyHandlers}), and no pass over every loaded
   * class is made.
   */
  public void install(Instrumentation instrumentation, boolean retransformLoaded) throws IOException {
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
      selection.add(WeavingRules.Rule.of(part, handlerClasses));
    }
    // Ignored by name only: a check of the class's modifiers (isSynthetic, say) would parse the class
    // file of every class the host loads, in every class loader.
    return new Weaver(NamePrefixes.ignoredBy(known), selection, this::rules, prewoven, new WeavingListener(known, agentVersion));
  }

  /**
   * The parts' weaving rules: loads their units, and ByteBuddy's matchers with them. A part whose
   * weaving cannot be made switches off (its classes woven ahead of time would count without the
   * rest), and the others go on.
   */
  List<WeavingRules.Rule> rules() {
    List<WeavingRules.Rule> all = new ArrayList<>();
    for (Part part : parts) {
      WeavingRules rules = new WeavingRules(part);
      try {
        part.weaving().install(rules);
        for (WeavingRules.Rule rule : rules.rules()) {
          if (handlerClasses || rule.handlerInterface() == null) {
            all.add(rule);
          }
        }
      } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
        AgentFaults.count("instrumentation");
        part.unitSwitch().turnOff("its weaving could not be made (" + e + ")");
      }
    }
    return all;
  }

  /** The switches of the parts woven (for the start gate: a start too late switches them off). */
  public List<UnitSwitch> unitSwitches() {
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
  public void weaveEarlyHandlers(Instrumentation instrumentation, List<StartGate.Passed> passed) {
    Map<ClassLoader, Set<String>> wanted = new IdentityHashMap<>();
    for (StartGate.Passed type : passed) {
      wanted.computeIfAbsent(type.loader, loader -> new HashSet<>()).add(type.name.replace('/', '.'));
    }
    List<Class<?>> handlers = new ArrayList<>();
    for (int attempt = 0; !wanted.isEmpty() && attempt < 20; attempt++) {
      if (attempt > 0) {
        Weaver.sleep(10);
      }
      for (Class<?> type : Weaver.loadedClasses(instrumentation)) {
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

}
