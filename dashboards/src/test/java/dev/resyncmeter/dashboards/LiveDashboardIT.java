package dev.resyncmeter.dashboards;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.resyncmeter.testkit.ForkedJvm;
import dev.resyncmeter.testkit.Net;
import dev.resyncmeter.testkit.Prometheus;
import dev.resyncmeter.testkit.Tools;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every dashboard query and every rule expression, run through a real Prometheus (Debian's) that
 * scraped the real agent in the three demos: the client-java sample controllers against the embedded
 * API server, with churn, relists and drifts without a watch event that resyncs repair; the fabric8
 * sample and the JOSDK operator against fabric8's mock server, with churn, and for the operator drifts
 * that its timer repairs. Both processes live on loopback ports and are stopped afterwards in every case.
 * The echo panels and the OwnWriteLoop alert's series need the demos' echoing samples: a client-java
 * controller whose echoes settle, one that loops, and a JOSDK operator whose writes echo.
 */
class LiveDashboardIT {

  static final String JOB = "resync-meter-demo";
  /** Panels the demos cannot feed: they have no agent faults. */
  static final Set<String> MAY_BE_EMPTY = Set.of("Agent errors");

  /** One demo per client library, each its own scrape job, with the controller and handler it names. */
  record Library(String name, String demo, String job, String controller, String handler) {
    Map<String, String> variables() {
      return Map.of(
          "__rate_interval", "30s",
          "__range", "2m",
          "job", job,
          "namespace", ".*",
          "pod", ".*",
          "controller", controller,
          "handler", handler);
    }
  }

  static final List<Library> LIBRARIES =
      List.of(
          new Library("client-java", "client-java", JOB, "configmap-every-update", "configmap-every-update"),
          new Library("fabric8", "fabric8", JOB + "-fabric8", ".*", "Fabric8Sample.EveryUpdateHandler"),
          new Library("JOSDK", "josdk", JOB + "-josdk", "configmap-operator", "configmap-operator"));

  private static final List<ForkedJvm> demos = new ArrayList<>();
  private static Prometheus prometheus;
  /** Prometheus' configuration, TSDB and log; JUnit removes it after the class, failed or not. */
  @TempDir static Path workDir;

  @BeforeAll
  static void start() throws Exception {
    Tools.prometheus();
    StringBuilder scrapeConfigs = new StringBuilder();
    for (Library library : LIBRARIES) {
      int agentPort = Net.freePort();
      demos.add(
          ForkedJvm.start(
              List.of(
                  ForkedJvm.java().toString(),
                  "-javaagent:" + jar("resyncmeter.agentJar") + "=host=127.0.0.1,port=" + agentPort,
                  "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                  "-jar",
                  jar("resyncmeter.examplesJar").toString(),
                  "demo",
                  "--library",
                  library.demo(),
                  "--metrics-url",
                  "http://127.0.0.1:" + agentPort + "/metrics",
                  "--seconds",
                  "150"),
              Map.of(),
              ForkedJvm.AGENT_VARIABLES));
      scrapeConfigs.append(
          String.join(
              "\n",
              "  - job_name: " + library.job(),
              "    static_configs:",
              "      - targets: ['127.0.0.1:" + agentPort + "']",
              ""));
    }
    Path config = workDir.resolve("prometheus.yml");
    Files.writeString(
        config,
        String.join(
            "\n",
            "global:",
            "  scrape_interval: 1s",
            "  evaluation_interval: 1s",
            "rule_files:",
            "  - " + Dashboards.RULES.toAbsolutePath(),
            "scrape_configs:",
            scrapeConfigs.toString()));
    prometheus = Prometheus.start(config);
    // Long enough for resync ticks (5 s), changes (3 s), two relists (20 s), a drift repaired by a resync
    // (every 10 s, client-java) and by the timer (every 5 s, JOSDK), and rates over 30 s.
    long until = System.nanoTime() + Duration.ofSeconds(50).toNanos();
    while (System.nanoTime() < until) {
      for (ForkedJvm demo : demos) {
        assertThat(demo.isAlive()).as("the demo runs\n" + demo.transcript()).isTrue();
      }
      Thread.sleep(1_000);
    }
  }

  @AfterAll
  static void stop() throws Exception {
    if (prometheus != null) {
      prometheus.close();
    }
    for (ForkedJvm demo : demos) {
      demo.stop(Duration.ofSeconds(20));
    }
  }

  @Test
  void prometheusScrapedEveryDemosAgent() throws Exception {
    for (Library library : LIBRARIES) {
      assertThat(query("up{job=\"" + library.job() + "\"}")).as(library.job()).hasSize(1).allSatisfy(r -> assertThat(value(r)).isEqualTo(1.0));
    }
  }

  /** Every panel query runs; each panel has data from the demo of every library it says it applies to. */
  @Test
  void everyPanelQueryRunsAndEveryPanelHasDataFromEachLibraryItAppliesTo() throws Exception {
    Map<String, String> empty = new LinkedHashMap<>();
    int queries = 0;
    for (Path file : Dashboards.files()) {
      for (JsonObject panel : Dashboards.panels(Dashboards.read(file))) {
        String title = panel.get("title").getAsString();
        for (Library library : LIBRARIES) {
          if (!Dashboards.librariesOf(panel).contains(library.name())) {
            continue;
          }
          boolean panelHasData = false;
          for (String expr : Dashboards.expressions(panel)) {
            List<JsonObject> result = query(Dashboards.substitute(expr, library.variables()));
            queries++;
            panelHasData |= !result.isEmpty();
          }
          if (!panelHasData && !MAY_BE_EMPTY.contains(title)) {
            empty.put(file.getFileName() + ": " + title + " (" + library.name() + ")", String.join(" | ", Dashboards.expressions(panel)));
          }
        }
      }
    }
    assertThat(queries).isGreaterThan(40);
    assertThat(empty).as("panels without data").isEmpty();
  }

  /**
   * The handlers table merges its queries' frames on kind and handler: each query gives one row per
   * handler, labelled by those two only, so that the merge makes one row of each; its counts
   * (rounded increase()) are whole numbers.
   */
  @Test
  void theHandlersTableGivesOneRowPerHandlerWithWholeCounts() throws Exception {
    JsonObject panel =
        Dashboards.panels(Dashboards.read(Dashboards.FOLDER.resolve("resync-cost-overview.json"))).stream()
            .filter(p -> p.get("title").getAsString().equals("Handlers: do they filter no-ops?"))
            .findFirst()
            .orElseThrow();
    for (Library library : LIBRARIES) {
      if (!Dashboards.librariesOf(panel).contains(library.name())) {
        continue;
      }
      Set<Map<String, String>> handlers = new HashSet<>();
      int counts = 0;
      for (String expr : Dashboards.expressions(panel)) {
        List<Map<String, String>> rows = new ArrayList<>();
        for (JsonObject r : query(Dashboards.substitute(expr, library.variables()))) {
          Map<String, String> labels = new java.util.TreeMap<>();
          r.getAsJsonObject("metric").entrySet().forEach(e -> labels.put(e.getKey(), e.getValue().getAsString()));
          rows.add(labels);
          if (expr.startsWith("round(")) {
            assertThat(value(r)).as(library.name() + ": a whole count: " + expr).isEqualTo(Math.rint(value(r)));
            counts++;
          }
        }
        assertThat(rows).as(library.name() + ": one row per handler: " + expr).doesNotHaveDuplicates()
            .allSatisfy(labels -> assertThat(labels.keySet()).containsExactlyInAnyOrder("kind", "handler"));
        handlers.addAll(rows);
      }
      assertThat(handlers).as(library.name()).isNotEmpty();
      assertThat(counts).as(library.name() + ": counts in the table").isPositive();
    }
  }

  @Test
  void theResyncCostPanelsShowTheOperatorsPeriodicReconcilesBesideTheNoOpTriggersNotInThem() throws Exception {
    String josdk = LIBRARIES.get(2).job();
    assertThat(query("sum(increase(controller_reconcile_duration_seconds_sum{job=\"" + josdk + "\", trigger=\"periodic\"}[2m]))"))
        .singleElement()
        .satisfies(r -> assertThat(value(r)).isPositive());
    assertThat(query("sum(increase(controller_reconcile_duration_seconds_sum{job=\"" + josdk + "\", trigger=~\".*_noop\"}[2m]))")).isEmpty();
  }

  @Test
  void theFabric8HandlersNoOpsAreCountedWithAnUnknownOutcome() throws Exception {
    String fabric8 = LIBRARIES.get(1).job();
    Map<String, Double> byHandler = new LinkedHashMap<>();
    for (JsonObject r : query("sum by (handler) (increase(informer_noop_updates_total{job=\"" + fabric8 + "\", outcome=\"unknown\"}[2m]))")) {
      byHandler.put(r.getAsJsonObject("metric").get("handler").getAsString(), value(r));
    }
    assertThat(byHandler.keySet()).containsExactlyInAnyOrder("Fabric8Sample$EveryUpdateHandler", "Fabric8Sample$VersionCheckingHandler");
    assertThat(byHandler.values()).allSatisfy(n -> assertThat(n).isPositive());
  }

  @Test
  void theHeadlineNumbersShowTheResyncCostOfTheEnqueuingControllerOnly() throws Exception {
    String cost = "sum by (controller) (increase(controller_reconcile_duration_seconds_sum{job=\"" + JOB + "\", trigger=~\".*_noop\"}[2m]))";
    Map<String, Double> byController = new LinkedHashMap<>();
    for (JsonObject r : query(cost)) {
      byController.put(r.getAsJsonObject("metric").get("controller").getAsString(), value(r));
    }
    assertThat(byController.get("configmap-every-update")).isPositive();
    assertThat(byController.getOrDefault("configmap-rv-filter", 0.0)).isZero();
  }

  /**
   * Waste or repair: on no-op triggers configmap-every-update writes nothing, configmap-drift-repair
   * writes every time, changing nothing except where a drift was; configmap-rv-filter has none.
   */
  @Test
  void theClientJavaDemosResyncsShowWasteInOneControllerAndRepairsInAnother() throws Exception {
    String driftRepair = "resync_meter:noop_reconcile_waste_ratio:rate5m{job=\"" + JOB + "\", controller=\"configmap-drift-repair\"}";
    awaitData(driftRepair + " < 1");
    Map<String, Double> byControllerAndEffect = new java.util.TreeMap<>();
    for (JsonObject r : query("sum by (controller, effect) (controller_reconcile_effect_total{job=\"" + JOB + "\", trigger=~\".*_noop\"})")) {
      JsonObject metric = r.getAsJsonObject("metric");
      byControllerAndEffect.put(metric.get("controller").getAsString() + " " + metric.get("effect").getAsString(), value(r));
    }
    assertThat(byControllerAndEffect.keySet())
        .containsExactly("configmap-drift-repair changed", "configmap-drift-repair unchanged", "configmap-every-update none");
    assertThat(byControllerAndEffect.values()).allSatisfy(n -> assertThat(n).isPositive());
    assertThat(query("resync_meter:noop_reconcile_waste_ratio:rate5m{job=\"" + JOB + "\", controller=\"configmap-every-update\"}"))
        .singleElement()
        .satisfies(r -> assertThat(value(r)).isEqualTo(1.0));
    assertThat(query(driftRepair))
        .singleElement()
        .satisfies(r -> assertThat(value(r)).isStrictlyBetween(0.0, 1.0));
  }

  /** The operator's timer: most periodic reconciles write nothing, some repair what drifted unwatched. */
  @Test
  void theOperatorsPeriodicReconcilesWriteNothingOrRepair() throws Exception {
    String josdk = LIBRARIES.get(2).job();
    String periodic = "resync_meter:periodic_reconcile_waste_ratio:rate5m{job=\"" + josdk + "\"}";
    awaitData(periodic + " < 1");
    Map<String, Double> byEffect = new java.util.TreeMap<>();
    for (JsonObject r : query("sum by (effect) (controller_reconcile_effect_total{job=\"" + josdk + "\", trigger=\"periodic\"})")) {
      byEffect.put(r.getAsJsonObject("metric").get("effect").getAsString(), value(r));
    }
    assertThat(byEffect.keySet()).containsExactly("changed", "none");
    assertThat(byEffect.get("none")).isGreaterThan(byEffect.get("changed")).isPositive();
    assertThat(query(periodic))
        .singleElement()
        .satisfies(r -> assertThat(value(r)).isStrictlyBetween(0.0, 1.0));
  }

  /**
   * Echoes, from the demos' echoing sample controllers: in the client-java demo one controller's
   * echoes all change nothing (it settles) and another's change something again (loop steps, the
   * OwnWriteLoop alert's series); the JOSDK operator echoes too. Controllers that write nothing
   * (configmap-every-update, configmap-rv-filter) but watch what another controller of their process
   * writes reconcile its echoes, and change nothing.
   */
  @Test
  void theDemosShowEchoesThatSettleAndALoopAndNoneFromControllersThatWriteNothing() throws Exception {
    String loopSteps = "controller_reconcile_effect_total{job=\"" + JOB + "\", trigger=\"own_write\", effect=\"changed\"} > 0";
    awaitData(loopSteps);
    Map<String, Map<String, Double>> effectsByController = new java.util.TreeMap<>();
    for (JsonObject r : query("sum by (controller, effect) (controller_reconcile_effect_total{job=\"" + JOB + "\", trigger=\"own_write\"})")) {
      JsonObject metric = r.getAsJsonObject("metric");
      effectsByController.computeIfAbsent(metric.get("controller").getAsString(), k -> new java.util.TreeMap<>()).put(metric.get("effect").getAsString(), value(r));
    }
    // they write nothing, but watch what configmap-drift-repair writes: a write of their process, whose echo they reconcile for nothing
    assertThat(effectsByController.get("configmap-every-update")).containsOnlyKeys("none");
    assertThat(effectsByController.get("configmap-rv-filter")).containsOnlyKeys("none");
    assertThat(effectsByController.values())
        .as("a controller that settles: its echoes changed nothing")
        .anySatisfy(effects -> {
          assertThat(effects.getOrDefault("changed", 0.0)).isZero();
          assertThat(effects.getOrDefault("none", 0.0) + effects.getOrDefault("unchanged", 0.0)).isPositive();
        });
    assertThat(effectsByController.values()).as("a controller that loops").anySatisfy(effects -> assertThat(effects.get("changed")).isPositive());
    // the echoes reached the handlers as update calls of their own
    assertThat(query("sum(informer_own_write_updates_total{job=\"" + JOB + "\"})")).singleElement().satisfies(r -> assertThat(value(r)).isPositive());
    String josdk = LIBRARIES.get(2).job();
    assertThat(query("sum(controller_reconcile_total{job=\"" + josdk + "\", trigger=\"own_write\"})"))
        .as("the JOSDK operator's echoes")
        .singleElement()
        .satisfies(r -> assertThat(value(r)).isPositive());
  }

  @Test
  void everyRuleExpressionRunsAndTheRecordingRulesRecord() throws Exception {
    for (Map<String, Object> rule : Dashboards.rules()) {
      query((String) rule.get("expr"));
      if (rule.containsKey("record")) {
        assertThat(query((String) rule.get("record"))).as("recorded " + rule.get("record")).isNotEmpty();
      }
    }
  }

  @Test
  void theVariableQueriesFindTheirValues() throws Exception {
    assertThat(labelValues("job", "resync_meter_info")).contains(JOB);
    assertThat(labelValues("controller", "controller_reconcile_total{job=\"" + JOB + "\"}"))
        .contains("configmap-every-update", "configmap-rv-filter", "configmap-drift-repair");
    assertThat(labelValues("handler", "informer_updates_total{job=\"" + JOB + "\"}")).contains("configmap-every-update", "configmap-rv-filter");
  }

  /** How long a check waits for Prometheus to have what it needs: the demos run 150 s. */
  static final Duration AWAIT = Duration.ofSeconds(60);

  /**
   * Waits, at most {@link #AWAIT} and while every demo runs, until {@code promql} returns data. For a
   * ratio of repairs: a repair counter seen once has no rate yet, and seen unchanged since, a rate of
   * 0; under load the demo may not have repaired twice within the window when the checks begin.
   */
  static void awaitData(String promql) throws Exception {
    long deadline = System.nanoTime() + AWAIT.toNanos();
    while (query(promql).isEmpty()) {
      for (ForkedJvm demo : demos) {
        assertThat(demo.isAlive()).as("the demo runs while awaiting " + promql + "\n" + demo.transcript()).isTrue();
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(promql + " returned nothing within " + AWAIT);
      }
      Thread.sleep(1_000);
    }
  }

  // ---- Prometheus' HTTP API --------------------------------------------------------------------

  static List<JsonObject> query(String promql) throws IOException {
    JsonObject response = get("/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8));
    assertThat(response.get("status").getAsString()).as(promql + " -> " + response).isEqualTo("success");
    List<JsonObject> result = new ArrayList<>();
    JsonObject data = response.getAsJsonObject("data");
    if (data.get("resultType").getAsString().equals("vector")) {
      data.getAsJsonArray("result").forEach(e -> result.add(e.getAsJsonObject()));
    }
    return result;
  }

  static List<String> labelValues(String label, String match) throws IOException {
    JsonObject response = get("/api/v1/label/" + label + "/values?match[]=" + URLEncoder.encode(match, StandardCharsets.UTF_8));
    List<String> values = new ArrayList<>();
    response.getAsJsonArray("data").forEach(v -> values.add(v.getAsString()));
    return values;
  }

  static double value(JsonObject vectorSample) {
    return Double.parseDouble(vectorSample.getAsJsonArray("value").get(1).getAsString());
  }

  static JsonObject get(String path) throws IOException {
    return JsonParser.parseString(prometheus.get(path)).getAsJsonObject();
  }

  private static Path jar(String property) {
    Path jar = Path.of(System.getProperty(property, "")).toAbsolutePath().normalize();
    assertThat(Files.isRegularFile(jar)).as(jar + " is built by `mvn verify` from the top folder").isTrue();
    return jar;
  }
}
