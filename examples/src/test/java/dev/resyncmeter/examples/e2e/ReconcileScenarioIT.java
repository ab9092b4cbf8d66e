package dev.resyncmeter.examples.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resyncmeter.testkit.Scrape;
import dev.resyncmeter.testkit.Tools;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Reconcile attribution end to end: an enqueuing and a filtering controller (4 and 2 workers) go
 * through steps whose trigger is known by construction (initial adds, 3 resyncs, 4 real changes, a
 * relist, a reconciler that requeues 3 times, one that throws twice, a slow one). The reconcilers
 * count their own calls; every exported reconcile and add count must equal theirs.
 */
class ReconcileScenarioIT {

  private static final String EVERY = "phased-every-update";
  private static final String FILTER = "phased-rv-filter";

  private static AgentProcess scenario;
  private static Scrape duringSlow;
  private static Scrape duringSlowLater;
  private static Map<String, Long> truth;
  private static Scrape scrape;

  @BeforeAll
  static void runScenario() throws Exception {
    scenario = AgentProcess.start("host=127.0.0.1,port=0", Map.of(), "reconcile-scenario", "phases");
    String url = scenario.metricsUrl(Duration.ofSeconds(30));
    scenario.awaitStdout("SLOW STARTED"::equals, Duration.ofSeconds(120));
    duringSlow = Scrape.of(url);
    Thread.sleep(300);
    duringSlowLater = Scrape.of(url);
    scenario.send("release");
    scenario.awaitStdout("SCENARIO DONE"::equals, Duration.ofSeconds(60));
    truth = scenario.truth();
    scrape = Scrape.of(url);
  }

  @AfterAll
  static void stop() throws Exception {
    AgentProcess.end(scenario);
  }

  private static Map<String, Long> countedTruth() {
    Map<String, Long> counted = new java.util.LinkedHashMap<>(truth);
    counted.keySet().removeIf(series -> series.startsWith("reconciles_of{"));
    return counted;
  }

  @Test
  void reconcilesByTriggerAndResultAddsByTriggerAndRetriesEqualTheApplicationsCounts() {
    assertThat(truth).hasSizeGreaterThan(25);
    ExactCounts.assertExported(countedTruth(), scrape);
  }

  @Test
  void noReconcileOrAddIsExportedThatTheApplicationDidNotMake() {
    ExactCounts.assertNothingElse(
        countedTruth(),
        scrape,
        List.of("controller_reconcile_total", "controller_reconcile_duration_seconds_count", "workqueue_trigger_adds_total", "workqueue_retries_total", ExactCounts.EFFECTS));
  }

  /** These reconcilers send no request: every reconcile's effect is none (in the truth), and each has one. */
  @Test
  void everyReconcileHasOneEffectAndHereItIsNone() {
    assertThat(truth.keySet()).filteredOn(series -> series.startsWith(ExactCounts.EFFECTS + "{")).isNotEmpty().allMatch(series -> series.contains("effect=\"none\""));
    ExactCounts.assertEffectsAddUpToReconciles(scrape);
  }

  @Test
  void eachControllersReconcilesAddUpToWhatItsReconcilerCounted() {
    for (String controller : List.of(EVERY, FILTER)) {
      long counted = truth.get("reconciles_of{controller=\"" + controller + "\"}");
      assertThat(ExactCounts.sum(scrape, "controller_reconcile_total", "controller=\"" + controller + "\"")).isEqualTo(counted);
      assertThat(ExactCounts.sum(scrape, "controller_reconcile_duration_seconds_count", "controller=\"" + controller + "\"")).isEqualTo(counted);
    }
  }

  @Test
  void theResyncCostFallsOnTheEnqueuingControllerOnly() {
    assertThat(scrape.value("controller_reconcile_total{controller=\"" + EVERY + "\",result=\"success\",trigger=\"resync_noop\"}")).isEqualTo(3 * 5);
    assertThat(scrape.value("controller_reconcile_total{controller=\"" + EVERY + "\",result=\"success\",trigger=\"relist_noop\"}")).isEqualTo(5);
    assertThat(ExactCounts.sum(scrape, "controller_reconcile_total", "controller=\"" + FILTER + "\",result=\"success\",trigger=\"resync_noop\"")).isZero();
    assertThat(ExactCounts.sum(scrape, "controller_reconcile_total", "controller=\"" + FILTER + "\",result=\"success\",trigger=\"relist_noop\"")).isZero();
    assertThat(scrape.value("controller_reconcile_duration_seconds_sum{controller=\"" + EVERY + "\",trigger=\"resync_noop\"}")).isPositive();
  }

  @Test
  void aRequeueAndAnErrorAreAttributedAsControllerRuntimeWould() {
    // requeue-me: change -> requeue, then requeue -> requeue twice, then requeue -> success (3 requeues).
    assertThat(scrape.value("controller_reconcile_total{controller=\"" + EVERY + "\",result=\"requeue\",trigger=\"change\"}")).isEqualTo(1);
    assertThat(scrape.value("controller_reconcile_total{controller=\"" + EVERY + "\",result=\"requeue\",trigger=\"requeue\"}")).isEqualTo(2);
    // fail-me: change -> error, requeue -> error, requeue -> success.
    assertThat(scrape.value("controller_reconcile_total{controller=\"" + EVERY + "\",result=\"error\",trigger=\"change\"}")).isEqualTo(1);
    assertThat(scrape.value("controller_reconcile_total{controller=\"" + EVERY + "\",result=\"error\",trigger=\"requeue\"}")).isEqualTo(1);
    assertThat(scrape.value("workqueue_retries_total{name=\"" + EVERY + "\"}")).isEqualTo(3 + 2);
  }

  @Test
  void everyAddThatWasNotDeduplicatedIsCountedAsClientGoDoes() {
    // Each step waited for an idle queue, so no add of this scenario met its item still waiting.
    for (String controller : List.of(EVERY, FILTER)) {
      assertThat(scrape.value("workqueue_adds_total{name=\"" + controller + "\"}"))
          .isEqualTo(ExactCounts.sum(scrape, "workqueue_trigger_adds_total", "name=\"" + controller + "\""));
      assertThat(scrape.value("workqueue_queue_duration_seconds_count{name=\"" + controller + "\"}"))
          .isEqualTo(scrape.value("workqueue_adds_total{name=\"" + controller + "\"}"));
      assertThat(scrape.value("workqueue_work_duration_seconds_count{name=\"" + controller + "\"}"))
          .isEqualTo(scrape.value("workqueue_adds_total{name=\"" + controller + "\"}"));
    }
  }

  @Test
  void unfinishedWorkAndTheLongestProcessorRiseDuringASlowReconcileAndFallAfterIt() {
    String unfinished = "workqueue_unfinished_work_seconds{name=\"" + EVERY + "\"}";
    String longest = "workqueue_longest_running_processor_seconds{name=\"" + EVERY + "\"}";
    assertThat(duringSlow.value(unfinished)).isPositive();
    assertThat(duringSlow.value(longest)).isPositive();
    assertThat(duringSlowLater.value(unfinished)).isGreaterThanOrEqualTo(duringSlow.value(unfinished) + 0.25);
    assertThat(duringSlowLater.value(longest)).isGreaterThanOrEqualTo(duringSlow.value(longest) + 0.25);
    assertThat(scrape.value(unfinished)).isZero();
    assertThat(scrape.value(longest)).isZero();
  }

  @Test
  void depthReturnsToZeroWhenIdle() {
    assertThat(scrape.series()).containsEntry("workqueue_depth{name=\"" + EVERY + "\"}", 0.0);
    assertThat(scrape.series()).containsEntry("workqueue_depth{name=\"" + FILTER + "\"}", 0.0);
  }

  @Test
  void theHistogramsHaveBucketsForHistogramQuantile() {
    assertThat(scrape.series().keySet())
        .anyMatch(s -> s.startsWith("controller_reconcile_duration_seconds_bucket{controller=\"" + EVERY + "\",trigger=\"resync_noop\",le=\"0.005\"}"))
        .anyMatch(s -> s.startsWith("controller_reconcile_duration_seconds_bucket{controller=\"" + EVERY + "\",trigger=\"resync_noop\",le=\"60.0\"}"))
        .anyMatch(s -> s.startsWith("workqueue_queue_duration_seconds_bucket{name=\"" + EVERY + "\",le=\"1.0E-8\"}"))
        .anyMatch(s -> s.startsWith("workqueue_work_duration_seconds_bucket{name=\"" + EVERY + "\",le=\"+Inf\"}"));
  }

  @Test
  void theScrapePassesPromtool() throws Exception {
    assertThat(scrape.series().keySet()).noneMatch(s -> s.startsWith("resync_meter_errors_total"));
    Tools.assertCleanMetrics(scrape.body());
  }
}
