package dev.resyncmeter.agent.runtime;

import dev.resyncmeter.collector.ResyncMetrics;

/** For the units' tests: installs a collector as the agent's start does, and removes it. */
public final class TestCollector {

  private TestCollector() {}

  public static ResyncMetrics install() {
    ResyncMetrics metrics = new ResyncMetrics();
    AgentMetrics.install(metrics);
    return metrics;
  }

  public static void uninstall() {
    AgentMetrics.install(null);
  }
}
