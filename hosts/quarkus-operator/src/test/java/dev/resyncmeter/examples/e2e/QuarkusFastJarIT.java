package dev.resyncmeter.examples.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resyncmeter.examples.fabric8.MockApiServer;
import dev.resyncmeter.testkit.Scrape;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Class loaders: a JOSDK operator built with the Quarkus extension and packaged as Quarkus's fast-jar,
 * so fabric8 (on its Vert.x HTTP client) and JOSDK load through Quarkus's RunnerClassLoader from
 * {@code quarkus-app/lib/main}, not from the class path. It runs with the agent against fabric8's mock
 * API server (CRUD mode) in this JVM; every count the agent exports must equal the application's own,
 * and the agent must instrument all of it without a warning.
 *
 * <p>In the examples' test package to reuse their end-to-end helpers; the jar it runs is this
 * module's {@code quarkus-run.jar} (see {@code resyncmeter.examplesJar} in the pom).
 */
class QuarkusFastJarIT {

  private static final List<String> RECONCILE_FAMILIES =
      List.of("controller_reconcile_total", "controller_reconcile_duration_seconds_count", ExactCounts.EFFECTS);
  private static final List<String> INFORMER_FAMILIES = List.of("informer_notifications_total", "informer_updates_total", "informer_noop_updates_total");

  /** The mock server, in this JVM, logs every request it serves: kept out of the build's output. */
  private static final Logger MOCK_SERVER_LOG = Logger.getLogger("io.fabric8.mockwebserver");

  private static List<String> stdout;
  private static List<String> agentLines;
  private static Map<String, Long> truth;
  private static Scrape scrape;
  private static int served;

  @BeforeAll
  static void runOperator() throws Exception {
    MOCK_SERVER_LOG.setLevel(Level.WARNING);
    try (MockApiServer server = MockApiServer.start()) {
      // the server listens on the loopback address; its client names it localhost
      String apiServer = "http://" + InetAddress.getLoopbackAddress().getHostAddress() + ":" + server.client().getMasterUrl().getPort() + "/";
      Map<String, String> environment =
          Map.of(
              // fabric8's own variables (Quarkus fixes quarkus.kubernetes-client.api-server-url at build time):
              // the API server, and nothing from this machine's kubeconfig or a pod's service account
              "KUBERNETES_MASTER", apiServer,
              "KUBERNETES_AUTH_TRYKUBECONFIG", "false",
              "KUBERNETES_AUTH_TRYSERVICEACCOUNT", "false");
      AgentProcess process = AgentProcess.start("host=127.0.0.1,port=0", environment);
      try {
        String url = process.metricsUrl(Duration.ofSeconds(30));
        process.awaitStdout("SCENARIO DONE"::equals, Duration.ofSeconds(90));
        scrape = Scrape.of(url);
        served = server.requestCount();
        stdout = process.stdout();
        agentLines = process.agentLines();
        truth = process.truth();
      } finally {
        AgentProcess.end(process);
      }
    }
  }

  @Test
  void fabric8CameThroughQuarkusClassLoaderOnItsVertxClient() {
    assertThat(stdout).as(versions()).contains("host fabric8 loader io.quarkus.bootstrap.runner.RunnerClassLoader");
    assertThat(stdout).as(versions()).contains("host http client io.fabric8.kubernetes.client.vertx.VertxHttpClient");
  }

  @Test
  void theApplicationHasOneFabric8VersionTheOneItRuns() throws IOException {
    // the root pom pins fabric8 by a property this module sets to the Quarkus BOM's: a drift shows here
    Pattern fabric8Jar = Pattern.compile("io\\.fabric8\\..*-(\\d+\\.\\d+\\.\\d+)\\.jar");
    Set<String> versions = new TreeSet<>();
    try (Stream<Path> jars = Files.list(AgentProcess.examplesJar().resolveSibling("lib").resolve("main"))) {
      jars.map(p -> fabric8Jar.matcher(p.getFileName().toString())).filter(Matcher::matches).forEach(m -> versions.add(m.group(1)));
    }
    assertThat(versions).singleElement().satisfies(v -> assertThat(stdout).anyMatch(l -> l.startsWith("host versions fabric8 " + v + " ")));
  }

  /** By trigger and result, and by trigger and effect: what the operator's writes changed, as their answers showed it. */
  @Test
  void everyReconcileIsExportedExactlyByTriggerResultAndEffect() {
    Map<String, Long> counted = only(RECONCILE_FAMILIES);
    assertThat(counted)
        .containsKeys(
            "controller_reconcile_total{controller=\"quarkus-operator\",result=\"success\",trigger=\"periodic\"}",
            "controller_reconcile_total{controller=\"quarkus-operator\",result=\"success\",trigger=\"requeue\"}",
            "controller_reconcile_total{controller=\"quarkus-operator\",result=\"success\",trigger=\"change\"}",
            "controller_reconcile_total{controller=\"quarkus-operator\",result=\"requeue\",trigger=\"change\"}",
            "controller_reconcile_total{controller=\"quarkus-operator\",result=\"error\",trigger=\"change\"}",
            "controller_reconcile_effect_total{controller=\"quarkus-operator\",effect=\"changed\",trigger=\"change\"}",
            "controller_reconcile_effect_total{controller=\"quarkus-operator\",effect=\"unchanged\",trigger=\"periodic\"}",
            "controller_reconcile_effect_total{controller=\"quarkus-operator\",effect=\"none\",trigger=\"periodic\"}",
            "controller_reconcile_effect_total{controller=\"quarkus-operator\",effect=\"none\",trigger=\"requeue\"}");
    assertExactly(counted, RECONCILE_FAMILIES);
  }

  @Test
  void everyInformerNotificationIsExportedExactly() {
    Map<String, Long> counted = only(INFORMER_FAMILIES);
    assertThat(counted).hasSize(3);
    assertExactly(counted, INFORMER_FAMILIES);
  }

  @Test
  void everyApiRequestIsExportedExactly() {
    Map<String, Long> counted = only(ExactCounts.API_REQUEST_FAMILIES);
    assertThat(counted)
        .containsKeys(
            "controller_reconcile_api_requests_total{controller=\"quarkus-operator\",trigger=\"periodic\",verb=\"get\"}",
            "controller_reconcile_api_requests_total{controller=\"quarkus-operator\",trigger=\"periodic\",verb=\"update\"}",
            "controller_reconcile_api_requests_total{controller=\"quarkus-operator\",trigger=\"change\",verb=\"patch\"}",
            "controller_reconcile_api_requests_total{controller=\"quarkus-operator\",trigger=\"change\",verb=\"create\"}");
    // the application's interceptor saw every request the mock server served but the one change made
    // from outside the process (someone else's edit, on a client no agent sees): its counts are the whole truth
    long responses = counted.entrySet().stream().filter(e -> e.getKey().startsWith("rest_client_requests_total{")).mapToLong(Map.Entry::getValue).sum();
    assertThat(responses).as("responses the application counted, requests the mock server served but the outside change").isEqualTo(served - 1);
    assertExactly(counted, ExactCounts.API_REQUEST_FAMILIES);
  }

  @Test
  void theAgentInstrumentsFabric8AndJosdkWithoutAWarning() {
    assertThat(agentLines).as("the agent's own stderr lines; " + versions()).singleElement().asString().contains(" INFO resync-meter ");
    Map<String, Double> active = new LinkedHashMap<>(scrape.series());
    active.keySet().removeIf(s -> !s.startsWith("resync_meter_instrumentation_active{"));
    assertThat(active)
        .as(versions())
        .containsKeys(
            "resync_meter_instrumentation_active{component=\"fabric8-informer\"}",
            "resync_meter_instrumentation_active{component=\"fabric8-requests\"}",
            "resync_meter_instrumentation_active{component=\"josdk-reconciler\"}")
        .allSatisfy((series, value) -> assertThat(value).as(series).isEqualTo(1.0));
    assertThat(scrape.series().keySet()).as("faults the agent caught in itself").noneMatch(s -> s.startsWith("resync_meter_errors_total"));
    assertThat(scrape.series().keySet()).anyMatch(s -> s.startsWith("resync_meter_info{client=\"fabric8\""));
  }

  /** The application's counts of these families. */
  private static Map<String, Long> only(List<String> families) {
    Map<String, Long> counted = new LinkedHashMap<>(truth);
    counted.keySet().removeIf(series -> families.stream().noneMatch(f -> series.startsWith(f + "{")));
    return counted;
  }

  /** Each count exported with exactly its value, and no other series of these families. */
  private static void assertExactly(Map<String, Long> counted, List<String> families) {
    ExactCounts.assertExported(counted, scrape);
    ExactCounts.assertNothingElse(counted, scrape, families);
  }

  /** What ran, for failure messages. */
  private static String versions() {
    return stdout.stream().filter(l -> l.startsWith("host ")).toList().toString();
  }
}
