package dev.resyncmeter.agent;

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

  static void install(ResyncMetrics instance) {
    metrics = instance;
  }

  public static Observability observability() {
    return OBSERVABILITY;
  }

  /** The collector, or null before the agent started (advice then records nothing). */
  public static ResyncMetrics get() {
    return metrics;
  }
}
