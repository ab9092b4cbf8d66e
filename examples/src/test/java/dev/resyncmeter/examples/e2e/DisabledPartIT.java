package dev.resyncmeter.examples.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resyncmeter.testkit.Scrape;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A part turned off by the user: the reconcile scenario runs with {@code
 * disable=clientjava-workqueue+no-such-part}. The workqueue part is not woven and exports nothing,
 * and nothing looks like a fault; the other parts count exactly what the reconcilers counted, with
 * the trigger that only the workqueue tells now {@code unknown}; the unknown name costs one line, and
 * the controllers run on.
 */
class DisabledPartIT {

  private static final List<String> RECONCILE_FAMILIES =
      List.of("controller_reconcile_total", "controller_reconcile_duration_seconds_count", ExactCounts.EFFECTS);

  private static AgentProcess scenario;
  private static Map<String, Long> truth;
  private static Scrape scrape;

  @BeforeAll
  static void runTheReconcileScenarioWithoutTheWorkqueuePart() throws Exception {
    scenario = AgentProcess.start("host=127.0.0.1,port=0,disable=clientjava-workqueue+no-such-part", Map.of(), "reconcile-scenario", "phases");
    String url = scenario.metricsUrl(Duration.ofSeconds(30));
    scenario.awaitStdout("SLOW STARTED"::equals, Duration.ofSeconds(120));
    scenario.send("release");
    scenario.awaitStdout("SCENARIO DONE"::equals, Duration.ofSeconds(60));
    truth = scenario.truth();
    scrape = Scrape.of(url);
  }

  @AfterAll
  static void stop() throws Exception {
    // the controllers ran on and the scenario exits 0
    AgentProcess.end(scenario);
  }

  @Test
  void theUnknownNameIsOneWarningAndTheStartLineNamesTheDisabledPart() {
    assertThat(scenario.agentLines()).hasSize(2);
    assertThat(scenario.agentLines().get(0))
        .isEqualTo(
            "[resync-meter] WARN unknown part 'no-such-part' in agent argument disable (parts: clientjava-informer, clientjava-workqueue,"
                + " clientjava-controller, clientjava-requests, fabric8-informer, fabric8-requests, josdk-reconciler); ignored");
    assertThat(scenario.agentLines().get(1))
        .matches(
            "\\[resync-meter\\] INFO resync-meter \\S+ serving http://127\\.0\\.0\\.1:\\d+/metrics; instrumenting client-java 27\\.0\\.0"
                + " \\(informer, controller, requests\\), fabric8 7\\.6\\.1 \\(informer, requests\\), JOSDK 5\\.3\\.2 \\(reconciler\\);"
                + " disabled: clientjava-workqueue");
  }

  @Test
  void theDisabledPartExportsNothingAndNothingLooksLikeAFault() {
    assertThat(scrape.series().keySet()).noneMatch(s -> s.startsWith("workqueue_"));
    assertThat(scrape.series().keySet()).noneMatch(s -> s.contains("clientjava-workqueue"));
    assertThat(scrape.series().keySet()).noneMatch(s -> s.startsWith("resync_meter_errors_total"));
    assertThat(scrape.series())
        .containsEntry("resync_meter_instrumentation_active{component=\"clientjava-informer\"}", 1.0)
        .containsEntry("resync_meter_instrumentation_active{component=\"clientjava-controller\"}", 1.0)
        .containsEntry("resync_meter_instrumentation_active{component=\"clientjava-requests\"}", 1.0);
    assertThat(scrape.series().entrySet())
        .filteredOn(e -> e.getKey().startsWith("resync_meter_instrumentation_active{"))
        .hasSize(6)
        .allMatch(e -> e.getValue() == 1.0);
  }

  @Test
  void theInformersCountsStayExact() {
    Map<String, Long> notifications = new TreeMap<>(truth);
    notifications.keySet().removeIf(series -> !series.startsWith("informer_notifications_total{"));
    assertThat(notifications).hasSizeGreaterThanOrEqualTo(4);
    ExactCounts.assertExported(notifications, scrape);
    ExactCounts.assertNothingElse(notifications, scrape, List.of("informer_notifications_total"));
  }

  @Test
  void theReconcilesStayExactWithTheTriggerOnlyTheWorkqueueCouldTellUnknown() {
    Map<String, Long> expected = new TreeMap<>();
    truth.forEach(
        (series, count) -> {
          if (RECONCILE_FAMILIES.stream().anyMatch(f -> series.startsWith(f + "{"))) {
            expected.merge(series.replaceAll("trigger=\"\\w+\"", "trigger=\"unknown\""), count, Long::sum);
          }
        });
    assertThat(expected).hasSizeGreaterThan(6);
    ExactCounts.assertExported(expected, scrape);
    ExactCounts.assertNothingElse(expected, scrape, RECONCILE_FAMILIES);
    for (String controller : List.of("phased-every-update", "phased-rv-filter")) {
      long counted = truth.get("reconciles_of{controller=\"" + controller + "\"}");
      assertThat(ExactCounts.sum(scrape, "controller_reconcile_total", "controller=\"" + controller + "\"")).isEqualTo(counted);
    }
    ExactCounts.assertEffectsAddUpToReconciles(scrape);
  }

  @Test
  void noopOutcomesAreUnknownNeverDropped() {
    assertThat(scrape.series().entrySet())
        .filteredOn(e -> e.getKey().startsWith("informer_noop_updates_total{") && e.getValue() > 0)
        .isNotEmpty()
        .allMatch(e -> e.getKey().contains("outcome=\"unknown\""));
  }
}
