package dev.resyncmeter.agent.runtime;

import dev.resyncmeter.collector.ResyncMetrics;

/** The one collector of this JVM, reachable from advice code that runs inside the host's classes. */
public final class AgentMetrics {

  private static volatile ResyncMetrics metrics;

  private AgentMetrics() {}

  public static void install(ResyncMetrics instance) {
    metrics = instance;
  }

  /** The collector while {@code unit} counts, or null (off, or the agent not started). */
  public static ResyncMetrics whenOn(UnitSwitch unit) {
    return unit.on() ? metrics : null;
  }

  /** The collector, or null before the agent started (advice then records nothing). */
  public static ResyncMetrics get() {
    return metrics;
  }
}
