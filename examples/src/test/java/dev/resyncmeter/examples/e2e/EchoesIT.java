package dev.resyncmeter.examples.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resyncmeter.testkit.Scrape;
import dev.resyncmeter.testkit.Tools;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Echoes (issue 44), one forked JVM with the agent per library: every count the agent exports of
 * update calls that were echoes ({@code informer_own_write_updates_total}) and of the {@code own_write}
 * trigger equals the application's own, which it tells after the run from the versions its writes were
 * answered with and the versions its handlers saw (EchoTruth), never from the agent.
 *
 * <p>client-java on the embedded API server (EchoScenario): a controller that stamps its object on
 * every reconcile and loops until its bound (an update, a merge patch, a JSON patch, a server-side
 * apply, then a write that changes nothing and so no echo), one that labels and settles after one echo, another client's write
 * between a write and its echo, and each controller watching what the other writes. fabric8 and JOSDK
 * on fabric8's mock server in CRUD mode, which sends a write's event before its answer. Server-side
 * apply only with client-java: the mock server answers it 415, which the fabric8 scenario prints.
 */
class EchoesIT {

  private static final String AGENT_ARGS = "host=127.0.0.1,port=0";

  /** The families an echo shows in: every series of theirs the application counted, and no other. */
  static final List<String> OWN_WRITE_FAMILIES =
      List.of(
          "informer_own_write_updates_total",
          "workqueue_trigger_adds_total",
          "controller_reconcile_total",
          "controller_reconcile_duration_seconds_count",
          "controller_reconcile_api_requests_total",
          ExactCounts.EFFECTS);

  @Test
  void clientJavaEchoesTheLoopAndTheSettlingAreExportedExactly() throws Exception {
    try (AgentProcess scenario = AgentProcess.start(AGENT_ARGS, Map.of(), "echo-scenario")) {
      Scrape scrape = scrapeWhenDone(scenario);
      Map<String, Long> truth = scenario.truth();
      // by construction: the stamp-0 loop's four echoes, settle-0's and settle-other's, at both handlers
      assertThat(truth)
          .containsEntry("informer_own_write_updates_total{handler=\"timestamp-stamper\",kind=\"ConfigMap\"}", 6L)
          .containsEntry("informer_own_write_updates_total{handler=\"label-settler\",kind=\"ConfigMap\"}", 6L)
          .containsEntry("informer_notifications_total{handler=\"timestamp-stamper\",kind=\"ConfigMap\",type=\"update\"}", 7L)
          .containsEntry("informer_notifications_total{handler=\"label-settler\",kind=\"ConfigMap\",type=\"update\"}", 7L)
          // the loop: three reconciles on its own writes changed stamp-0 again, the bound's changed nothing
          .containsEntry("controller_reconcile_effect_total{controller=\"timestamp-stamper\",effect=\"changed\",trigger=\"own_write\"}", 3L)
          .containsEntry("controller_reconcile_effect_total{controller=\"timestamp-stamper\",effect=\"unchanged\",trigger=\"own_write\"}", 1L)
          .doesNotContainKey("controller_reconcile_effect_total{controller=\"label-settler\",effect=\"changed\",trigger=\"own_write\"}");
      assertThat(scenario.stdout())
          .contains(
              "WRITE update stamp-0: new version",
              "WRITE merge patch stamp-0: new version",
              "WRITE JSON patch stamp-0: new version",
              "WRITE server-side apply stamp-0: new version",
              "WRITE update (the stamper's bound, the object as read) stamp-0: same version",
              "LOOP STEPS timestamp-stamper 3")
          .doesNotContain("SKIPPED server-side apply: the embedded API server answers it 415")
          .filteredOn(l -> l.startsWith("UPDATE ") && l.endsWith(": not an echo"))
          .hasSize(2);
      withTranscript(scenario, () -> assertExactlyTheOwnWriteCounts(truth, scrape, truth));
      ExactCounts.assertEffectsAddUpToReconciles(scrape);
      Tools.assertCleanMetrics(scrape.body());
      assertCleanRun(scenario, scrape);
    }
  }

  @Test
  void fabric8EchoesOfEveryKindOfWriteAreExportedExactly() throws Exception {
    try (AgentProcess scenario = AgentProcess.start(AGENT_ARGS, Map.of(), "fabric8-echo-scenario")) {
      Scrape scrape = scrapeWhenDone(scenario);
      Map<String, Long> truth = scenario.truth();
      // update, edit, merge patch, JSON patch, and ours before the other client's; not the two no-ops
      assertThat(truth)
          .containsEntry("informer_own_write_updates_total{handler=\"Fabric8EchoScenario$EchoHandler\",kind=\"ConfigMap\"}", 5L)
          .containsEntry("informer_notifications_total{handler=\"Fabric8EchoScenario$EchoHandler\",kind=\"ConfigMap\",type=\"update\"}", 6L);
      assertThat(scenario.stdout())
          .contains(
              "WRITE update of the object as read written: same version",
              "WRITE merge patch of what is there written: same version",
              "SKIPPED server-side apply: the mock server answers 415");
      withTranscript(scenario, () -> assertExactlyTheOwnWriteCounts(truth, scrape, truth));
      Tools.assertCleanMetrics(scrape.body());
      assertCleanRun(scenario, scrape);
    }
  }

  /**
   * The operator's write with the client inside reconcile comes back and is reconciled on
   * {@code own_write}; its write through {@code UpdateControl} comes back to the event source, an echo
   * too, and JOSDK reconciles nothing for it. Compared: the update calls and echoes of JOSDK's event
   * source and of the application's own fabric8 handler, the reconciles by trigger, and every series
   * with the trigger {@code own_write}. Not compared: the effect and requests of the reconcile whose
   * write JOSDK makes after it returns (whether the agent counts that write to it is the agent's rule).
   */
  @Test
  void josdkEchoesOfAWriteInsideReconcileAndOfUpdateControlAreExportedExactly() throws Exception {
    try (AgentProcess scenario = AgentProcess.start(AGENT_ARGS, Map.of(), "josdk-echo-scenario")) {
      Scrape scrape = scrapeWhenDone(scenario);
      Map<String, Long> truth = scenario.truth();
      assertThat(truth)
          .containsEntry("informer_own_write_updates_total{handler=\"echo-operator\",kind=\"ConfigMap\"}", 2L)
          .containsEntry("informer_own_write_updates_total{handler=\"JosdkEchoScenario$EchoObserver\",kind=\"ConfigMap\"}", 2L)
          .containsEntry("controller_reconcile_total{controller=\"echo-operator\",result=\"success\",trigger=\"change\"}", 2L)
          .containsEntry("controller_reconcile_total{controller=\"echo-operator\",result=\"success\",trigger=\"own_write\"}", 1L)
          .containsEntry("controller_reconcile_effect_total{controller=\"echo-operator\",effect=\"none\",trigger=\"own_write\"}", 1L);
      assertThat(scenario.stdout()).contains("RECONCILES client-write 2, update-control 1");
      Map<String, Long> compared = new TreeMap<>(truth);
      compared.keySet().removeIf(s -> (s.startsWith(ExactCounts.EFFECTS) || s.startsWith("controller_reconcile_api_requests_total")) && !s.contains("trigger=\"own_write\""));
      Map<String, Long> exportedOnlyIfCounted = new TreeMap<>(truth);
      exportedOnlyIfCounted.keySet().removeIf(s -> !s.startsWith("informer_own_write_updates_total") && !s.startsWith("controller_reconcile_total") && !s.contains("trigger=\"own_write\""));
      withTranscript(scenario, () -> assertExactlyTheOwnWriteCounts(compared, scrape, exportedOnlyIfCounted));
      assertCleanRun(scenario, scrape);
    }
  }

  /**
   * Every series of {@code compared} is exported with its count; and no series of the own-write
   * families is exported above zero that {@code allowed} has not, where a JOSDK run allows only
   * {@code informer_own_write_updates_total}, {@code controller_reconcile_total} and the
   * {@code own_write} series.
   */
  private static void assertExactlyTheOwnWriteCounts(Map<String, Long> compared, Scrape scrape, Map<String, Long> allowed) {
    ExactCounts.assertExported(compared, scrape);
    if (allowed == compared) {
      ExactCounts.assertNothingElse(allowed, scrape, OWN_WRITE_FAMILIES);
      return;
    }
    Map<String, Long> unexpected = new TreeMap<>();
    scrape.series().forEach(
        (series, value) -> {
          boolean ownWrite = series.startsWith("informer_own_write_updates_total{") || series.startsWith("controller_reconcile_total{") || (series.contains("trigger=\"own_write\"") && OWN_WRITE_FAMILIES.stream().anyMatch(f -> series.startsWith(f + "{")));
          if (ownWrite && value != 0 && !allowed.containsKey(series)) {
            unexpected.put(series, value.longValue());
          }
        });
    assertThat(unexpected).as("exported, not counted by the application").isEmpty();
  }

  /** A failed comparison with what the application saw: each update call and each reconcile, with the adds it took. */
  private static void withTranscript(AgentProcess scenario, Runnable comparison) {
    try {
      comparison.run();
    } catch (AssertionError e) {
      List<String> seen = scenario.stdout().stream().filter(l -> l.startsWith("UPDATE ") || l.startsWith("RECONCILE ") || l.startsWith("WRITE ")).toList();
      throw new AssertionError(e.getMessage() + "\nwhat the application saw:\n" + String.join("\n", seen), e);
    }
  }

  static Scrape scrapeWhenDone(AgentProcess scenario) throws Exception {
    String url = scenario.metricsUrl(Duration.ofSeconds(60));
    scenario.awaitStdout("SCENARIO DONE"::equals, Duration.ofSeconds(90));
    return Scrape.of(url);
  }

  private static void assertCleanRun(AgentProcess scenario, Scrape scrape) throws Exception {
    assertThat(scenario.agentLines()).as("the agent's own stderr lines").singleElement().asString().contains(" INFO resync-meter ");
    assertThat(scrape.series().keySet()).as("faults the agent caught in itself").noneMatch(s -> s.startsWith("resync_meter_errors_total"));
    assertThat(scenario.closeInputAndWait(Duration.ofSeconds(30))).as("exit code\n%s", scenario.transcript()).isZero();
  }
}
