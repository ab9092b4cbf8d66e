package dev.resyncmeter.agent.runtime;

import dev.resyncmeter.collector.Observability;
import dev.resyncmeter.collector.ResyncMetrics;

/** The one collector of this JVM, reachable from advice code that runs inside the host's classes. */
public final class AgentMetrics {

  private static volatile ResyncMetrics metrics;

  /**
   * What the parts can see, for the collector's counts. The parts tell it from the agent's start on
   * ({@code disable=} before the collector is built), so it is made first and handed to the collector.
   */
  private static final Observability OBSERVABILITY = new Observability();

  private AgentMetrics() {}

  public static void install(ResyncMetrics instance) {
    metrics = instance;
  }

  /** The collector while {@code unit} counts, or null (off, or the agent not started). */
  public static ResyncMetrics whenOn(UnitSwitch unit) {
    return unit.on() ? metrics : null;
  }

  /** What the parts can see now, handed to the collector when it is built. */
  public static Observability observability() {
    return OBSERVABILITY;
  }

  /** The collector, or null before the agent started (advice then records nothing). */
  public static ResyncMetrics get() {
    return metrics;
  }
}
