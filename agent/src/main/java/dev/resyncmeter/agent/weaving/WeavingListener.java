package dev.resyncmeter.agent.weaving;

import dev.resyncmeter.agent.api.AdvisingUnits;
import dev.resyncmeter.agent.api.Library;
import dev.resyncmeter.agent.api.Part;
import dev.resyncmeter.agent.runtime.AgentFaults;
import dev.resyncmeter.agent.runtime.AgentMetrics;
import dev.resyncmeter.agent.runtime.UnitSwitch;
import dev.resyncmeter.collector.ResyncMetrics;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Counts and reports instrumentation faults, and publishes {@code resync_meter_info} when a class of
 * a library is first woven (the library may sit in a loader the agent saw only now).
 */
final class WeavingListener {
  private static final Set<Library> INFO_PUBLISHED = new HashSet<>();

  private final List<Part> parts;
  private final String agentVersion;

  /** Listens to the weaving of {@code parts}. */
  WeavingListener(List<Part> parts, String agentVersion) {
    this.parts = List.copyOf(parts);
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
    Library library = libraryWeaving(typeName);
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
    List<UnitSwitch> units = AdvisingUnits.take();
    if (units.isEmpty()) {
      AgentFaults.record("instrumentation", new IllegalStateException("cannot instrument " + typeName + ": " + throwable, throwable));
      return;
    }
    for (UnitSwitch unit : units) {
      AgentFaults.count("instrumentation");
      unit.turnOff("could not weave " + typeName + " (" + throwable + ")");
    }
  }

  /** The library of a class some part weaves by name ({@code io.kubernetes...}), or null. */
  private Library libraryWeaving(String className) {
    for (Part part : parts) {
      if (part.wovenByName().contains(className)) {
        return part.library();
      }
    }
    return null;
  }

  /** The transformation of a class ended, woven, failed or left alone. */
  void completed() {
    AdvisingUnits.take();
  }
}
