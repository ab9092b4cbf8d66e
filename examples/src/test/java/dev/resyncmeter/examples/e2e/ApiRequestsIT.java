package dev.resyncmeter.examples.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resyncmeter.testkit.Scrape;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * API requests end to end. {@code reconcile-scenario api-requests}: two client-java controllers whose
 * reconcilers read their object from the loopback API server on every reconcile and write it back on
 * a real change, through initial adds, resyncs, changes, a relist, requeues and failures, and one
 * read from a port nothing listens on. It runs once with the agent and once without: the requests by
 * trigger and verb equal what the reconcilers counted, the responses by method and code what the
 * server answered, the failed read counts once as {@code <error>}, and the reconciler, the client's
 * configuration and the headers it sends are the same with the agent as without. The reconcilers make
 * every kind of write in turn (EffectWrites): each reconcile's effect by trigger equals what the
 * reconciler knew from the server's answers, and each kind of write got the same answers with the
 * agent as without. The JOSDK operator on fabric8's JDK HTTP client is counted as exactly as on the
 * default one ({@link Fabric8AndJosdkIT}).
 */
class ApiRequestsIT {

  private static final Predicate<String> COMPARED =
      line -> line.startsWith("CLIENT CONFIG ") || line.startsWith("RECONCILER SAW ") || line.startsWith("REQUEST HEADERS ") || line.startsWith("WRITE ");

  private static Map<String, Long> truth;
  private static Scrape scrape;
  private static List<String> withAgent;
  private static List<String> withoutAgent;

  @BeforeAll
  static void runWithAndWithoutTheAgent() throws Exception {
    try (AgentProcess scenario = AgentProcess.start("host=127.0.0.1,port=0", Map.of(), "reconcile-scenario", "api-requests")) {
      String url = scenario.metricsUrl(Duration.ofSeconds(30));
      scenario.awaitStdout("SCENARIO DONE"::equals, Duration.ofSeconds(120));
      truth = scenario.truth();
      scrape = Scrape.of(url);
      withAgent = scenario.stdout().stream().filter(COMPARED).toList();
    }
    try (AgentProcess scenario = AgentProcess.startWithoutAgent("reconcile-scenario", "api-requests")) {
      scenario.awaitStdout("SCENARIO DONE"::equals, Duration.ofSeconds(120));
      withoutAgent = scenario.stdout().stream().filter(COMPARED).toList();
    }
  }

  @AfterAll
  static void noAgentFault() {
    assertThat(scrape.series().keySet()).noneMatch(series -> series.startsWith("resync_meter_errors_total{"));
  }

  private static Map<String, Long> requestTruth() {
    Map<String, Long> requests = new LinkedHashMap<>(truth);
    requests.keySet().removeIf(series -> ExactCounts.API_REQUEST_FAMILIES.stream().noneMatch(family -> series.startsWith(family + "{")));
    return requests;
  }

  @Test
  void requestsByTriggerAndVerbAndResponsesByMethodAndCodeEqualTheApplicationsCounts() {
    Map<String, Long> requests = requestTruth();
    assertThat(requests)
        .containsKeys(
            "controller_reconcile_api_requests_total{controller=\"phased-every-update\",trigger=\"resync_noop\",verb=\"get\"}",
            "controller_reconcile_api_requests_total{controller=\"phased-every-update\",trigger=\"relist_noop\",verb=\"get\"}",
            "controller_reconcile_api_requests_total{controller=\"phased-rv-filter\",trigger=\"change\",verb=\"update\"}",
            "controller_reconcile_api_requests_total{controller=\"phased-rv-filter\",trigger=\"requeue\",verb=\"get\"}",
            "controller_reconcile_api_requests_total{controller=\"phased-every-update\",trigger=\"resync_noop\",verb=\"patch\"}",
            "controller_reconcile_api_requests_total{controller=\"phased-every-update\",trigger=\"resync_noop\",verb=\"create\"}",
            "controller_reconcile_api_requests_total{controller=\"phased-every-update\",trigger=\"change\",verb=\"delete\"}");
    ExactCounts.assertExported(requests, scrape);
    ExactCounts.assertNothingElse(requests, scrape, ExactCounts.API_REQUEST_FAMILIES);
  }

  /**
   * Every reconcile's effect, by controller and trigger, is what the reconciler knew from what it sent
   * and what the server answered, and nothing else is exported; each trigger of the enqueuing
   * controller had reconciles of all three effects, and the effects add up to the reconciles.
   */
  @Test
  void reconcilesByEffectEqualWhatTheReconcilersKnewFromTheServersAnswers() {
    Map<String, Long> effects = new LinkedHashMap<>(truth);
    effects.keySet().removeIf(series -> !series.startsWith(ExactCounts.EFFECTS + "{"));
    for (String trigger : List.of("change", "resync_noop", "relist_noop", "requeue")) {
      for (String effect : List.of("none", "unchanged", "changed")) {
        assertThat(effects).containsKey("controller_reconcile_effect_total{controller=\"phased-every-update\",effect=\"" + effect + "\",trigger=\"" + trigger + "\"}");
      }
    }
    ExactCounts.assertExported(effects, scrape);
    ExactCounts.assertNothingElse(effects, scrape, List.of(ExactCounts.EFFECTS));
    ExactCounts.assertEffectsAddUpToReconciles(scrape);
  }

  /**
   * What each kind of write got from the server, and the effect its reconcile counted: the same with
   * the agent as without (the agent changes no answer). A merge patch without a resourceVersion changes
   * nothing here, yet counts changed: the agent's documented rule, since such a request does not say
   * which version it patched (waste stays a lower bound), and the scenario counts by that rule.
   */
  @Test
  void eachKindOfWriteGotTheAnswerItWasMadeForAndTheSameWithoutTheAgent() {
    assertThat(withAgent)
        .filteredOn(line -> line.startsWith("WRITE "))
        .containsExactly(
            "WRITE CONFLICT_THEN_RETRY: PUT 409, PUT ok new version -> changed",
            "WRITE CREATE: POST ok -> changed",
            "WRITE CREATE_EXISTING: POST 409 -> unchanged",
            "WRITE DELETE: DELETE ok -> changed",
            "WRITE DELETE_MISSING: DELETE 404 -> unchanged",
            "WRITE NONE:  -> none",
            "WRITE PATCH_CHANGE: PATCH ok new version -> changed",
            "WRITE PATCH_SAME: PATCH ok same version -> unchanged",
            "WRITE PATCH_STALE: PATCH 409 -> unchanged",
            "WRITE PATCH_WITHOUT_VERSION: PATCH ok same version (no version sent: changed by the rule) -> changed",
            "WRITE UPDATE_CHANGE: PUT ok new version -> changed",
            "WRITE UPDATE_SAME: PUT ok same version -> unchanged",
            "WRITE UPDATE_STALE: PUT 409 -> unchanged");
    assertThat(withAgent).isEqualTo(withoutAgent);
  }

  @Test
  void theReconcilesAroundTheRequestsAreCountedAsExactlyAsWithout() {
    Map<String, Long> counted = new LinkedHashMap<>(truth);
    counted.keySet().removeIf(series -> series.startsWith("reconciles_of{"));
    ExactCounts.assertExported(counted, scrape);
  }

  @Test
  void aReadThatGetsNoResponseCountsOnceAsAnErrorAndTheReconcilerSeesTheSameFailure() {
    // one per controller: both reconcile the object whose read goes to a dead port
    assertThat(ExactCounts.sum(scrape, "rest_client_requests_total", "code=\"<error>\"")).isEqualTo(2.0);
    assertThat(truth.entrySet()).filteredOn(e -> e.getKey().contains("<error>")).extracting(Map.Entry::getValue).containsOnly(2L);
    assertThat(withAgent).filteredOn(line -> line.startsWith("RECONCILER SAW ")).hasSize(1).first().asString().contains("ConnectException");
    assertThat(withAgent).filteredOn(line -> line.startsWith("RECONCILER SAW ")).isEqualTo(withoutAgent.stream().filter(line -> line.startsWith("RECONCILER SAW ")).toList());
  }

  @Test
  void theHostsHttpClientKeepsItsConfigurationAndSendsTheSameHeaders() {
    assertThat(withAgent).filteredOn(line -> line.startsWith("CLIENT CONFIG ")).hasSize(1).first().asString().contains("HeaderProbe");
    assertThat(withAgent).filteredOn(line -> line.startsWith("REQUEST HEADERS ")).hasSize(1).first().asString().contains("User-Agent=");
    assertThat(withAgent).isEqualTo(withoutAgent);
  }

  @Test
  void theJosdkOperatorOnFabric8sJdkHttpClientIsCountedExactly() throws Exception {
    try (AgentProcess scenario = AgentProcess.start("host=127.0.0.1,port=0", Map.of(), "josdk-scenario", "--http", "jdk")) {
      String url = scenario.metricsUrl(Duration.ofSeconds(30));
      scenario.awaitStdout("SCENARIO DONE"::equals, Duration.ofSeconds(120));
      assertThat(scenario.stdout()).contains("HTTP CLIENT io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientImpl");
      Scrape josdk = Scrape.of(url);
      ExactCounts.assertJosdkScenario(scenario.truth(), josdk);
      assertThat(scenario.stdout()).contains("WRITES OUTSIDE THE RECONCILER 0");
      assertThat(josdk.series().keySet()).noneMatch(series -> series.startsWith("resync_meter_errors_total{"));
    }
  }
}
