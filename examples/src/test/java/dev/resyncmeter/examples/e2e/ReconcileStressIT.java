package dev.resyncmeter.examples.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resyncmeter.testkit.Scrape;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Concurrency: 4 informers, each with a controller of 4 workers (16 in all), 250 objects replayed 100
 * times each: 100,000 handler calls and as many queue adds. The run finishes (no deadlock), every
 * count stays exact, and the application's handler and reconciler code never runs while its thread
 * holds a lock (the agent wraps that code and must not add one).
 */
class ReconcileStressIT {

  @Test
  void everyCountIsExactUnderConcurrency() throws Exception {
    try (AgentProcess scenario = AgentProcess.start("host=127.0.0.1,port=0", Map.of(), "reconcile-scenario", "stress")) {
      String url = scenario.metricsUrl(Duration.ofSeconds(30));
      scenario.awaitStdout("SCENARIO DONE"::equals, Duration.ofSeconds(240));
      Map<String, Long> truth = scenario.truth();
      Scrape scrape = Scrape.of(url);

      long handlerCalls =
          truth.entrySet().stream().filter(e -> e.getKey().startsWith("informer_notifications_total{") && e.getKey().contains("type=\"update\"")).mapToLong(Map.Entry::getValue).sum();
      assertThat(handlerCalls).isEqualTo(100_000);

      Map<String, Long> counted = new java.util.LinkedHashMap<>(truth);
      counted.keySet().removeIf(series -> series.startsWith("reconciles_of{"));
      ExactCounts.assertExported(counted, scrape);
      ExactCounts.assertNothingElse(
          counted,
          scrape,
          List.of("informer_notifications_total", "informer_updates_total", "informer_noop_updates_total", "controller_reconcile_total", "workqueue_trigger_adds_total", ExactCounts.EFFECTS));
      for (int i = 0; i < 4; i++) {
        String controller = "stress-" + i;
        long reconciles = truth.get("reconciles_of{controller=\"" + controller + "\"}");
        assertThat(ExactCounts.sum(scrape, "controller_reconcile_total", "controller=\"" + controller + "\"")).isEqualTo(reconciles);
        assertThat(scrape.series()).containsEntry("workqueue_depth{name=\"" + controller + "\"}", 0.0);
      }
      ExactCounts.assertEffectsAddUpToReconciles(scrape);
      assertThat(scrape.series().keySet()).noneMatch(s -> s.startsWith("resync_meter_errors_total"));
      String locks = scenario.awaitStdout(l -> l.startsWith("locks held in host code: "), Duration.ofSeconds(5));
      // A pool thread holds its own ThreadPoolExecutor$Worker lock while it runs any task, agent or not.
      assertThat(locks).matches("locks held in host code: [1-9]\\d* sampled, held \\[(java\\.util\\.concurrent\\.ThreadPoolExecutor\\$Worker)?\\]");
      assertThat(scenario.closeInputAndWait(Duration.ofSeconds(30))).isZero();
    }
  }
}
