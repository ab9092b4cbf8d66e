package dev.resyncmeter.examples.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resyncmeter.testkit.Scrape;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Class loaders: the examples' scenarios run from a Spring Boot executable jar, so client-java,
 * client-java-extended, fabric8, JOSDK and the controllers load from {@code BOOT-INF/lib} through
 * Spring Boot's nested-jar class loader, which the agent's classes cannot see. Every count must still
 * equal the application's own (client-java's informers and reconciles; fabric8's informer handlers;
 * the JOSDK operator's reconciles and its API requests over fabric8's Vert.x client), every part of
 * the instrumentation must stay on, and the agent must say in its one start line that it waits for
 * the libraries.
 *
 * <p>In the examples' test package to reuse their end-to-end helpers; the jar it runs is this
 * module's {@code host-spring-boot.jar} (see {@code resyncmeter.examplesJar} in the pom).
 */
class SpringBootJarIT {

  private static final String START_LINE =
      "\\[resync-meter\\] INFO resync-meter \\S+ serving http://127\\.0\\.0\\.1:\\d+/metrics; client-java, fabric8 and JOSDK are not on the "
          + "system class path: each is instrumented when a class loader loads it";
  private static final String INFO = "resync_meter_info{client=\"client-java\",client_version=\"27.0.0\",version=\"";

  private static Run resync;
  private static Run reconcile;
  private static Run fabric8;
  private static Run josdk;

  /** One finished scenario: what it printed, its ground truth and the agent's scrape at its end. */
  private record Run(List<String> stdout, List<String> agentLines, Map<String, Long> truth, Scrape scrape) {}

  @BeforeAll
  static void runScenarios() throws Exception {
    AgentProcess process = AgentProcess.start("host=127.0.0.1,port=0", Map.of(), "scenario", "4", "2", "6", "2");
    try {
      String url = process.metricsUrl(Duration.ofSeconds(30));
      process.awaitStdout("SCENARIO DONE"::equals, Duration.ofSeconds(120));
      resync = new Run(process.stdout(), process.agentLines(), process.truth(), Scrape.of(url));
    } finally {
      AgentProcess.end(process);
    }
    process = AgentProcess.start("host=127.0.0.1,port=0", Map.of(), "reconcile-scenario", "phases");
    try {
      String url = process.metricsUrl(Duration.ofSeconds(30));
      process.awaitStdout("SLOW STARTED"::equals, Duration.ofSeconds(120));
      process.send("release");
      process.awaitStdout("SCENARIO DONE"::equals, Duration.ofSeconds(60));
      reconcile = new Run(process.stdout(), process.agentLines(), process.truth(), Scrape.of(url));
    } finally {
      AgentProcess.end(process);
    }
    fabric8 = runToTheEnd("fabric8-scenario");
    josdk = runToTheEnd("josdk-scenario");
  }

  private static Run runToTheEnd(String scenario) throws Exception {
    AgentProcess process = AgentProcess.start("host=127.0.0.1,port=0", Map.of(), scenario);
    try {
      String url = process.metricsUrl(Duration.ofSeconds(30));
      process.awaitStdout("SCENARIO DONE"::equals, Duration.ofSeconds(120));
      return new Run(process.stdout(), process.agentLines(), process.truth(), Scrape.of(url));
    } finally {
      AgentProcess.end(process);
    }
  }

  private static List<Run> runs() {
    return List.of(resync, reconcile, fabric8, josdk);
  }

  @Test
  void theLibrariesCameFromTheNestedJarNotFromTheClassPath() {
    assertThat(josdk.stdout()).contains("HTTP CLIENT io.fabric8.kubernetes.client.vertx.VertxHttpClient");
    for (Run run : runs()) {
      assertThat(run.stdout())
          .anyMatch(l -> l.matches("host client-java loader org\\.springframework\\.boot\\.loader\\.launch\\.LaunchedClassLoader from jar:nested:.*!BOOT-INF/lib/client-java-27\\.0\\.0\\.jar!/"));
      assertThat(run.stdout()).anyMatch(l -> l.matches("host system class path \\S*host-spring-boot\\.jar"));
    }
  }

  @Test
  void everyInformerCountIsExportedExactly() {
    assertThat(resync.truth()).hasSizeGreaterThan(20);
    ExactCounts.assertExported(resync.truth(), resync.scrape());
    ExactCounts.assertNothingElse(
        resync.truth(),
        resync.scrape(),
        ExactCounts.INFORMER_FAMILIES);
  }

  @Test
  void everyReconcileAndAddCountIsExportedExactly() {
    Map<String, Long> counted = new LinkedHashMap<>(reconcile.truth());
    counted.keySet().removeIf(series -> series.startsWith("reconciles_of{"));
    assertThat(counted).hasSizeGreaterThan(25);
    ExactCounts.assertExported(counted, reconcile.scrape());
    ExactCounts.assertNothingElse(
        counted,
        reconcile.scrape(),
        List.of("controller_reconcile_total", "controller_reconcile_duration_seconds_count", "workqueue_trigger_adds_total", "workqueue_retries_total", ExactCounts.EFFECTS));
    ExactCounts.assertEffectsAddUpToReconciles(reconcile.scrape());
  }

  @Test
  void theFabric8HandlersCountsAreExportedExactly() {
    ExactCounts.assertFabric8Scenario(fabric8.truth(), fabric8.scrape(), "ConfigMap");
  }

  @Test
  void theOperatorsReconcilesAndApiRequestsAreExportedExactly() {
    ExactCounts.assertJosdkScenario(josdk.truth(), josdk.scrape());
  }

  @Test
  void theAgentSaysInOneLineThatItWaitsForTheLibrariesAndReportsTheirVersionsOnceLoaded() {
    for (Run run : runs()) {
      assertThat(run.agentLines()).singleElement().asString().matches(START_LINE);
      assertThat(run.scrape().series().keySet()).noneMatch(s -> s.startsWith("resync_meter_errors_total"));
    }
    for (Run run : List.of(resync, reconcile)) {
      assertThat(run.scrape().series().keySet()).anyMatch(s -> s.startsWith(INFO));
    }
    for (Run run : List.of(fabric8, josdk)) {
      assertThat(run.scrape().series().keySet()).anyMatch(s -> s.startsWith("resync_meter_info{client=\"fabric8\""));
    }
    assertThat(josdk.scrape().series().keySet()).anyMatch(s -> s.startsWith("resync_meter_info{client=\"josdk\""));
  }

  /** No part switched itself off: every part the scenario uses, and every other, counts. */
  @Test
  void everyPartOfTheInstrumentationStaysOn() {
    for (Run run : runs()) {
      Map<String, Double> active = new LinkedHashMap<>();
      run.scrape().series().forEach((series, value) -> {
        if (series.startsWith("resync_meter_instrumentation_active{")) {
          active.put(series, value);
        }
      });
      assertThat(active).hasSize(7).allSatisfy((series, value) -> assertThat(value).as(series).isEqualTo(1.0));
    }
  }
}
