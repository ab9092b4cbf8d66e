package dev.resyncmeter.examples.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resyncmeter.testkit.Scrape;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Parts turned off by the user ({@code disable=}), each of the seven in one of four runs, several at
 * once: two runs of the client-java reconcile scenario and two of the JOSDK scenario (JOSDK on fabric8).
 * In each run a part turned off is not woven and exports nothing, nothing looks like a fault, and the
 * parts left on count exactly what the application counted, with what only the parts turned off
 * could tell as the table of parts in host-promises.md says ({@code unknown}, {@code changed}, a class
 * name); the controllers run on and the scenario exits 0.
 */
class DisabledPartIT {

  /** Every part, in the order of the agent's list. */
  static final List<String> PARTS =
      List.of(
          "clientjava-informer",
          "clientjava-workqueue",
          "clientjava-controller",
          "clientjava-requests",
          "fabric8-informer",
          "fabric8-requests",
          "josdk-reconciler");

  private static final List<String> RECONCILE_FAMILIES =
      List.of("controller_reconcile_total", "controller_reconcile_duration_seconds_count", ExactCounts.EFFECTS);
  private static final List<String> REST_CLIENT_FAMILIES = List.of("rest_client_requests_total", "rest_client_request_duration_seconds_count");

  /**
   * The reconcile scenario without the workqueue and the requests parts (and a name that is no part):
   * the informers and the controllers count exactly, with the trigger only the workqueue tells {@code
   * unknown} and the effect only the requests tell {@code changed}.
   */
  @Nested
  class ClientJavaWorkqueueAndRequestsOff extends OneRun {

    ClientJavaWorkqueueAndRequestsOff() {
      super(Run::reconcileScenario, "clientjava-workqueue+clientjava-requests+no-such-part", "workqueue_", "rest_client_", "controller_reconcile_api_requests_total");
    }

    @Test
    void theUnknownNameIsOneWarningAndTheStartLineNamesTheDisabledParts() {
      assertThat(run.process.agentLines()).hasSize(2);
      assertThat(run.process.agentLines().get(0))
          .isEqualTo("[resync-meter] WARN unknown part 'no-such-part' in agent argument disable (parts: " + String.join(", ", PARTS) + "); ignored");
      assertThat(run.process.agentLines().get(1))
          .matches(
              "\\[resync-meter\\] INFO resync-meter \\S+ serving http://127\\.0\\.0\\.1:\\d+/metrics; instrumenting client-java 27\\.0\\.0"
                  + " \\(informer, controller\\), fabric8 7\\.6\\.1 \\(informer, requests\\), JOSDK 5\\.3\\.2 \\(reconciler\\);"
                  + " disabled: clientjava-workqueue, clientjava-requests");
    }

    @Test
    void theInformersCountsStayExact() {
      Map<String, Long> notifications = run.truthOf(List.of("informer_notifications_total"), UnaryOperator.identity());
      assertThat(notifications).hasSizeGreaterThanOrEqualTo(4);
      run.assertExactly(notifications, List.of("informer_notifications_total"));
    }

    @Test
    void theReconcilesStayExactWithTheTriggerUnknownAndEveryEffectChanged() {
      Map<String, Long> expected =
          run.truthOf(RECONCILE_FAMILIES, series -> series.replaceAll("trigger=\"\\w+\"", "trigger=\"unknown\"").replaceAll("effect=\"\\w+\"", "effect=\"changed\""));
      assertThat(expected).hasSizeGreaterThan(6);
      run.assertExactly(expected, RECONCILE_FAMILIES);
      for (String controller : List.of("phased-every-update", "phased-rv-filter")) {
        long counted = run.truth.get("reconciles_of{controller=\"" + controller + "\"}");
        assertThat(ExactCounts.sum(run.scrape, "controller_reconcile_total", "controller=\"" + controller + "\"")).isEqualTo(counted);
        assertThat(run.scrape.value(ExactCounts.EFFECTS + "{controller=\"" + controller + "\",effect=\"changed\",trigger=\"unknown\"}")).isEqualTo(counted);
      }
    }

    @Test
    void noopOutcomesAreUnknownNeverDropped() {
      assertThat(run.scrape.series().entrySet())
          .filteredOn(e -> e.getKey().startsWith("informer_noop_updates_total{") && e.getValue() > 0)
          .isNotEmpty()
          .allMatch(e -> e.getKey().contains("outcome=\"unknown\""));
    }
  }

  /**
   * The reconcile scenario without the informer and the controller parts: the workqueues count every
   * add and retry exactly, with the trigger of the adds no handler call tells {@code unknown}, under
   * their class's name instead of their controller's.
   */
  @Nested
  class ClientJavaInformerAndControllerOff extends OneRun {

    ClientJavaInformerAndControllerOff() {
      super(Run::reconcileScenario, "clientjava-informer+clientjava-controller", "informer_", "controller_reconcile_");
    }

    @Test
    void theWorkqueuesCountEveryAddAndRetryExactlyWithTheTriggerOfAHandlersAddUnknown() {
      // a requeue is the queue's own add; every other the reconcile scenario's handlers made
      Map<String, Long> adds =
          byLabel(run.truthOf(List.of("workqueue_trigger_adds_total"), UnaryOperator.identity()), "trigger", t -> t.equals("requeue") ? t : "unknown");
      assertThat(adds).containsOnlyKeys("requeue", "unknown");
      assertThat(byLabel(run.exported("workqueue_trigger_adds_total"), "trigger", UnaryOperator.identity())).isEqualTo(adds);
      assertThat(ExactCounts.sum(run.scrape, "workqueue_retries_total", ""))
          .isEqualTo(run.truthOf(List.of("workqueue_retries_total"), UnaryOperator.identity()).values().stream().mapToLong(Long::longValue).sum());
    }

    @Test
    void theQueuesAreNamedAfterTheirClassNotTheirController() {
      assertThat(run.exported("workqueue_trigger_adds_total").keySet())
          .isNotEmpty()
          .allMatch(series -> series.contains("name=\"ReconcileScenario$Watched\""));
    }
  }

  /**
   * The JOSDK scenario without the JOSDK part and fabric8's informer part: fabric8's requests part
   * counts every request and response exactly; no request is any reconcile's, with no reconcile seen.
   */
  @Nested
  class JosdkReconcilerAndFabric8InformerOff extends OneRun {

    JosdkReconcilerAndFabric8InformerOff() {
      super(Run::josdkScenario, "josdk-reconciler+fabric8-informer", "informer_", "controller_reconcile_");
    }

    @Test
    void theRequestsAndResponsesStayExact() {
      Map<String, Long> requests = run.truthOf(REST_CLIENT_FAMILIES, UnaryOperator.identity());
      assertThat(requests).hasSizeGreaterThan(6);
      run.assertExactly(requests, REST_CLIENT_FAMILIES);
    }
  }

  /**
   * The JOSDK scenario without fabric8's requests part: the operator's reconciles and its informer's
   * notifications count exactly, with every reconcile's effect {@code changed}, since no write's answer
   * is seen.
   */
  @Nested
  class Fabric8RequestsOff extends OneRun {

    Fabric8RequestsOff() {
      super(Run::josdkScenario, "fabric8-requests", "rest_client_", "controller_reconcile_api_requests_total");
    }

    @Test
    void theReconcilesStayExactWithEveryEffectChanged() {
      Map<String, Long> expected = run.truthOf(RECONCILE_FAMILIES, series -> series.replaceAll("effect=\"\\w+\"", "effect=\"changed\""));
      assertThat(expected).containsKeys(
          "controller_reconcile_total{controller=\"configmap-operator\",result=\"success\",trigger=\"periodic\"}",
          "controller_reconcile_effect_total{controller=\"configmap-operator\",effect=\"changed\",trigger=\"periodic\"}");
      run.assertExactly(expected, RECONCILE_FAMILIES);
      assertThat(ExactCounts.sum(run.scrape, "controller_reconcile_total", "configmap-operator")).isEqualTo((double) run.truth.get("reconciles_of{configmap-operator}"));
    }

    @Test
    void theInformersCountsStayExact() {
      List<String> families = List.of("informer_notifications_total", "informer_updates_total");
      Map<String, Long> informer = run.truthOf(families, UnaryOperator.identity());
      assertThat(informer).hasSize(3);
      run.assertExactly(informer, families);
    }
  }

  /**
   * The tests of one run with parts turned off, started before them and ended after them: beside
   * those of each class, that the parts turned off export nothing and do not look like a fault.
   */
  @TestInstance(TestInstance.Lifecycle.PER_CLASS)
  abstract static class OneRun {

    /** A scenario started with an agent argument {@code disable=...}. */
    interface Scenario {
      Run start(String disable) throws Exception;
    }

    private final Scenario scenario;
    private final String disable;
    private final String[] absentPrefixes;
    Run run;

    /** A run of {@code scenario} with {@code disable=<disable>}, in which no series starts with any of {@code absentPrefixes}. */
    OneRun(Scenario scenario, String disable, String... absentPrefixes) {
      this.scenario = scenario;
      this.disable = disable;
      this.absentPrefixes = absentPrefixes;
    }

    @BeforeAll
    void startTheRun() throws Exception {
      run = scenario.start(disable);
    }

    /** The controllers ran on, and the scenario exits 0. */
    @AfterAll
    void endTheRun() throws Exception {
      AgentProcess.end(run == null ? null : run.process);
    }

    @Test
    void theDisabledPartsExportNothingAndNothingLooksLikeAFault() {
      List<String> named = List.of(disable.split("\\+"));
      run.assertTurnedOff(PARTS.stream().filter(named::contains).toList(), absentPrefixes);
    }
  }

  /** A scenario run with parts turned off: its process, what it counted, and the agent's scrape at its end. */
  record Run(AgentProcess process, Map<String, Long> truth, Scrape scrape) {

    static Run reconcileScenario(String disable) throws Exception {
      return run(disable, ExactCounts::reconcileScenarioScrape, ExactCounts.RECONCILE_SCENARIO);
    }

    static Run josdkScenario(String disable) throws Exception {
      return run(
          disable,
          process -> {
            String url = process.metricsUrl(Duration.ofSeconds(60));
            process.awaitStdout("SCENARIO DONE"::equals, Duration.ofSeconds(120));
            return Scrape.of(url);
          },
          "josdk-scenario");
    }

    /** What the scenario's end gives: the agent's scrape then. */
    interface ScrapeAtTheEnd {
      Scrape of(AgentProcess process) throws Exception;
    }

    /** Runs {@code command} with {@code disable=<disable>} to its end; a run that does not get there is ended. */
    private static Run run(String disable, ScrapeAtTheEnd scrapeAtTheEnd, String... command) throws Exception {
      AgentProcess process = AgentProcess.start("host=127.0.0.1,port=0,disable=" + disable, Map.of(), command);
      try {
        Scrape scrape = scrapeAtTheEnd.of(process);
        return new Run(process, process.truth(), scrape);
      } catch (Exception | Error e) {
        process.close();
        throw e;
      }
    }

    /** The application's counts of these families, each series renamed by {@code rekey} and merged. */
    Map<String, Long> truthOf(List<String> families, UnaryOperator<String> rekey) {
      Map<String, Long> selected = new TreeMap<>();
      truth.forEach(
          (series, count) -> {
            if (families.stream().anyMatch(f -> series.startsWith(f + "{"))) {
              selected.merge(rekey.apply(series), count, Long::sum);
            }
          });
      return selected;
    }

    /** The exported series of one family, by value. */
    Map<String, Long> exported(String family) {
      Map<String, Long> series = new TreeMap<>();
      scrape.series().forEach((name, value) -> {
        if (name.startsWith(family + "{")) {
          series.put(name, value.longValue());
        }
      });
      return series;
    }

    /** Each count exported with exactly its value, and no other series of these families. */
    void assertExactly(Map<String, Long> expected, List<String> families) {
      ExactCounts.assertExported(expected, scrape);
      ExactCounts.assertNothingElse(expected, scrape, families);
    }

    /**
     * The parts {@code off} (in the agent's order) are turned off and do not look like a fault: the
     * start line, the agent's one line but warnings of unknown names, ends with their names; they have
     * no instrumentation_active series, every other part is on; no fault is counted; and no exported
     * series starts with any of {@code absentPrefixes}.
     */
    void assertTurnedOff(List<String> off, String... absentPrefixes) {
      assertThat(process.agentLines())
          .filteredOn(line -> !line.startsWith("[resync-meter] WARN unknown part "))
          .singleElement()
          .asString()
          .startsWith("[resync-meter] INFO resync-meter ")
          .endsWith("; disabled: " + String.join(", ", off));
      Map<String, Double> active = new TreeMap<>();
      scrape.series().forEach((series, value) -> {
        if (series.startsWith("resync_meter_instrumentation_active{")) {
          active.put(series, value);
        }
      });
      Map<String, Double> expected = new TreeMap<>();
      PARTS.stream().filter(part -> !off.contains(part)).forEach(part -> expected.put("resync_meter_instrumentation_active{component=\"" + part + "\"}", 1.0));
      assertThat(active).isEqualTo(expected);
      assertThat(scrape.series().keySet()).noneMatch(s -> s.startsWith("resync_meter_errors_total"));
      for (String prefix : absentPrefixes) {
        assertThat(scrape.series().keySet()).as(prefix).noneMatch(s -> s.startsWith(prefix));
      }
    }
  }

  /** The counts summed by one label's value, that value mapped by {@code value}. */
  static Map<String, Long> byLabel(Map<String, Long> counts, String label, UnaryOperator<String> value) {
    java.util.regex.Pattern pattern = java.util.regex.Pattern.compile(label + "=\"([^\"]*)\"");
    Map<String, Long> sums = new TreeMap<>();
    counts.forEach((series, count) -> {
      java.util.regex.Matcher matcher = pattern.matcher(series);
      assertThat(matcher.find()).as(series + " has " + label).isTrue();
      sums.merge(value.apply(matcher.group(1)), count, Long::sum);
    });
    return sums;
  }
}
