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
 * The fabric8 and JOSDK samples with the agent, against fabric8's mock server in CRUD mode in their
 * own JVM (the examples' fabric8 7.6.1 and JOSDK 5.3.2): exact counts, both libraries beside
 * client-java in one host, and the host unharmed when the agent fails or meets a class it cannot
 * weave. Fabric8VersionMatrixIT runs the two scenarios on the other versions.
 */
class Fabric8AndJosdkIT {

  private static final String AGENT_ARGS = "host=127.0.0.1,port=0";
  private static final String INJECT_FAULTS = "-Dresyncmeter.test.injectFaults=true";
  private static final String FAIL_WEAVING = "-Dresyncmeter.test.failWeaving=";

  @Test
  void theFabric8HandlersCountsAreExportedExactly() throws Exception {
    try (AgentProcess scenario = AgentProcess.start(AGENT_ARGS, Map.of(), "fabric8-scenario")) {
      Scrape scrape = scrapeWhenDone(scenario);
      ExactCounts.assertFabric8Scenario(scenario.truth(), scrape, "ConfigMap");
      Tools.assertCleanMetrics(scrape.body());
      assertCleanRun(scenario, scrape);
    }
  }

  /**
   * The operator's reconciles by trigger and result, their API requests, and their effects: every
   * periodic reconcile that wrote nothing, the first ones that wrote its copies (a merge patch that
   * changed, an update and a merge patch that changed nothing, an update refused with 409), the
   * changes' creates and patches. JOSDK wrote nothing of its own for these reconciles (no finalizer,
   * no status), which the client's interceptor saw: the operator's counts are all there is.
   */
  @Test
  void theOperatorsReconcilesAreExportedExactlyByTriggerResultAndEffect() throws Exception {
    try (AgentProcess scenario = AgentProcess.start(AGENT_ARGS, Map.of(), "josdk-scenario")) {
      Scrape scrape = scrapeWhenDone(scenario);
      ExactCounts.assertJosdkScenario(scenario.truth(), scrape);
      assertThat(scenario.stdout())
          .contains("WRITES OUTSIDE THE RECONCILER 0")
          .contains(
              "WRITE plain periodic: patch ok new version -> changed",
              "WRITE reschedule-once periodic: update ok same version -> unchanged",
              "WRITE fail-once periodic: patch ok same version -> unchanged",
              "WRITE slow periodic: update 409 -> unchanged",
              "WRITE plain periodic: no write -> none");
      assertCleanRun(scenario, scrape);
    }
  }

  @Test
  void clientJavaAndFabric8InOneHostKeepTheirCountsExactAndApart() throws Exception {
    try (AgentProcess scenario = AgentProcess.start(AGENT_ARGS, Map.of(), "mixed-scenario")) {
      Scrape scrape = scrapeWhenDone(scenario);
      Map<String, Long> truth = scenario.truth();
      assertThat(truth).containsKey("informer_relists_total{kind=\"Secret\",reason=\"expired\"}");
      // every informer series of both libraries, and no other
      ExactCounts.assertResyncScenario(truth, scrape);
      assertThat(scrape.series().keySet())
          .anyMatch(s -> s.startsWith("resync_meter_info{client=\"client-java\""))
          .anyMatch(s -> s.startsWith("resync_meter_info{client=\"fabric8\""));
      assertCleanRun(scenario, scrape);
    }
  }

  @Test
  void withTheAgentFailingInEveryCallBothSamplesRunAsWithoutIt() throws Exception {
    Map<String, Long> fabric8;
    try (AgentProcess scenario = AgentProcess.start(List.of(INJECT_FAULTS), AGENT_ARGS, Map.of(), "fabric8-scenario")) {
      Scrape scrape = scrapeWhenDone(scenario);
      fabric8 = scenario.truth();
      assertThat(scrape.value("resync_meter_errors_total{component=\"fabric8-informer\"}")).isPositive();
      assertThat(scenario.closeInputAndWait(Duration.ofSeconds(30))).as("exit code\n%s", scenario.transcript()).isZero();
    }
    // what the handlers saw, but the resyncs, whose number depends on timing: the resync updates and
    // the update calls in all (resync updates among them)
    Map<String, Long> expected = without(without(fabric8, "resync"), "type=\"update\"");
    try (AgentProcess scenario = AgentProcess.startWithoutAgent("fabric8-scenario")) {
      scenario.awaitStdout("SCENARIO DONE"::equals, Duration.ofSeconds(120));
      assertThat(without(without(scenario.truth(), "resync"), "type=\"update\"")).isEqualTo(expected);
      assertThat(scenario.closeInputAndWait(Duration.ofSeconds(30))).isZero();
    }
    try (AgentProcess scenario = AgentProcess.start(List.of(INJECT_FAULTS), AGENT_ARGS, Map.of(), "josdk-scenario")) {
      Scrape scrape = scrapeWhenDone(scenario);
      // the reconciles but the periodic ones, whose number depends on timing
      assertThat(without(scenario.truth(), "periodic"))
          .containsEntry("controller_reconcile_total{controller=\"configmap-operator\",result=\"error\",trigger=\"change\"}", 1L)
          .containsEntry("controller_reconcile_total{controller=\"configmap-operator\",result=\"requeue\",trigger=\"change\"}", 1L)
          .containsEntry("controller_reconcile_total{controller=\"configmap-operator\",result=\"success\",trigger=\"change\"}", 4L)
          .containsEntry("controller_reconcile_total{controller=\"configmap-operator\",result=\"success\",trigger=\"requeue\"}", 2L);
      assertThat(scrape.value("resync_meter_errors_total{component=\"josdk-reconciler\"}")).isPositive();
      assertThat(scenario.stderr()).noneMatch(l -> l.contains("InjectedFault") && !l.startsWith("[resync-meter]"));
      assertThat(scenario.closeInputAndWait(Duration.ofSeconds(30))).as("exit code\n%s", scenario.transcript()).isZero();
    }
  }

  @Test
  void aFabric8ClassThatCannotBeWovenSwitchesOnlyTheFabric8UnitOff() throws Exception {
    String store = "io.fabric8.kubernetes.client.informers.impl.cache.ProcessorStore";
    try (AgentProcess scenario = AgentProcess.start(List.of(FAIL_WEAVING + store), AGENT_ARGS, Map.of(), "josdk-scenario")) {
      Scrape scrape = scrapeWhenDone(scenario);
      Map<String, Long> reconciles = new TreeMap<>(scenario.truth());
      reconciles.keySet().removeIf(s -> s.startsWith("informer_"));
      ExactCounts.assertExported(without(reconciles, "reconciles_of"), scrape);
      assertThat(scenario.agentLines()).hasSize(2).last().asString().startsWith("[resync-meter] WARN fabric8 informer instrumentation off: could not weave " + store);
      assertThat(scrape.value("resync_meter_instrumentation_active{component=\"fabric8-informer\"}")).isZero();
      assertThat(scrape.value("resync_meter_instrumentation_active{component=\"josdk-reconciler\"}")).isEqualTo(1.0);
      assertThat(scenario.closeInputAndWait(Duration.ofSeconds(30))).as("exit code\n%s", scenario.transcript()).isZero();
    }
  }

  @Test
  void aJosdkClassThatCannotBeWovenSwitchesOnlyTheJosdkUnitOff() throws Exception {
    String processor = "io.javaoperatorsdk.operator.processing.event.EventProcessor";
    try (AgentProcess scenario = AgentProcess.start(List.of(FAIL_WEAVING + processor), AGENT_ARGS, Map.of(), "josdk-scenario")) {
      Scrape scrape = scrapeWhenDone(scenario);
      Map<String, Long> informer = new TreeMap<>(scenario.truth());
      informer.keySet().removeIf(s -> !s.startsWith("informer_"));
      ExactCounts.assertExported(informer, scrape);
      assertThat(scrape.series().keySet()).noneMatch(s -> s.startsWith("controller_reconcile_total")).noneMatch(s -> s.startsWith(ExactCounts.EFFECTS));
      assertThat(scenario.agentLines()).hasSize(2).last().asString().startsWith("[resync-meter] WARN JOSDK reconciler instrumentation off: could not weave " + processor);
      assertThat(scrape.value("resync_meter_instrumentation_active{component=\"fabric8-informer\"}")).isEqualTo(1.0);
      assertThat(scenario.closeInputAndWait(Duration.ofSeconds(30))).as("exit code\n%s", scenario.transcript()).isZero();
    }
  }

  private static Scrape scrapeWhenDone(AgentProcess scenario) throws Exception {
    String url = scenario.metricsUrl(Duration.ofSeconds(60));
    scenario.awaitStdout("SCENARIO DONE"::equals, Duration.ofSeconds(120));
    return Scrape.of(url);
  }

  /** The counts but those whose series contain {@code part}. */
  private static Map<String, Long> without(Map<String, Long> truth, String part) {
    Map<String, Long> kept = new TreeMap<>(truth);
    kept.keySet().removeIf(s -> s.contains(part));
    return kept;
  }

  private static void assertCleanRun(AgentProcess scenario, Scrape scrape) throws Exception {
    assertThat(scenario.agentLines()).as("the agent's own stderr lines").singleElement().asString().contains(" INFO resync-meter ");
    assertThat(scrape.series().keySet()).as("faults the agent caught in itself").noneMatch(s -> s.startsWith("resync_meter_errors_total"));
    assertThat(scenario.closeInputAndWait(Duration.ofSeconds(30))).as("exit code\n%s", scenario.transcript()).isZero();
  }
}
