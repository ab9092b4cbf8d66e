package dev.resyncmeter.examples.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.resyncmeter.examples.controller.SampleController;
import dev.resyncmeter.examples.josdk.ConfigMapOperator;
import dev.resyncmeter.report.Json;
import dev.resyncmeter.testkit.Net;
import dev.resyncmeter.testkit.Prometheus;
import dev.resyncmeter.testkit.Scrape;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fleet's report from a real Prometheus (Debian's, on loopback, scraping every second): two
 * replicas of the resync scenario's sample controllers in one job and the JOSDK scenario in another,
 * each a JVM with the agent. When all have done their work and Prometheus has scraped their final
 * counts, {@code report --prometheus} over a range covering their whole life must give every count
 * the applications themselves counted (their {@code truth} lines, the sample controllers' own count
 * of their reconciles), summed over the pods; number by number, the sum of each pod's own report; and
 * its gate must fail exactly the handler the scenario built to enqueue no-op updates.
 */
class FleetReportIT {

  private static final Duration WAIT = Duration.ofSeconds(120);
  /** The report's fields that are not counts added over pods. */
  private static final Set<String> NOT_SUMMED = Set.of("resync_period_seconds", "verdict", "verdict_text", "noop_verdict", "noop_verdict_text", "timer_verdict", "timer_verdict_text");
  private static final String EVERY_UPDATE = SampleController.EVERY_UPDATE;
  private static final String RV_FILTER = SampleController.RV_FILTER;
  private static final String AUDIT = "ResyncScenario$AuditHandler";
  private static final String OPERATOR = ConfigMapOperator.NAME;
  private static final Pattern LABEL = Pattern.compile("(\\w+)=\"([^\"]*)\"");

  @Test
  @Timeout(value = 10, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void theReportFromPrometheusGivesWhatTheApplicationsCountedAndTheSumOfEachPodsOwnReport(@TempDir Path dir) throws Exception {
    long began = System.currentTimeMillis();
    List<Integer> scenarioPorts = List.of(Net.freePort(), Net.freePort());
    int josdkPort = Net.freePort();
    Files.writeString(
        dir.resolve("prometheus.yml"),
        String.join(
            "\n",
            "global:",
            "  scrape_interval: 1s",
            "scrape_configs:",
            "  - job_name: resync-scenario",
            "    static_configs:",
            "      - targets: ['127.0.0.1:" + scenarioPorts.get(0) + "', '127.0.0.1:" + scenarioPorts.get(1) + "']",
            "  - job_name: josdk-scenario",
            "    static_configs:",
            "      - targets: ['127.0.0.1:" + josdkPort + "']",
            ""));
    Prometheus prometheus = null;
    List<AgentProcess> pods = new ArrayList<>();
    try {
      prometheus = Prometheus.start(dir.resolve("prometheus.yml"));
      String api = prometheus.api();
      for (int port : scenarioPorts) {
        pods.add(AgentProcess.start("host=127.0.0.1,port=" + port, Map.of(), "scenario"));
      }
      pods.add(AgentProcess.start("host=127.0.0.1,port=" + josdkPort, Map.of(), "josdk-scenario"));
      List<Path> finalScrapes = new ArrayList<>();
      for (AgentProcess pod : pods) {
        pod.awaitStdout("SCENARIO DONE"::equals, WAIT);
        String url = pod.metricsUrl(WAIT);
        Path scrape = dir.resolve("pod-" + finalScrapes.size() + ".prom");
        Files.writeString(scrape, settled(url));
        finalScrapes.add(scrape);
      }
      // The scenarios wait with their final counts: once Prometheus has scraped each after this, it holds them.
      long countsFinal = System.currentTimeMillis();
      awaitScrapedAfter(prometheus, countsFinal);

      long rangeSeconds = (System.currentTimeMillis() - began) / 1000 + 60;
      AttachIT.Command fleet = AttachIT.agentCommand("report", "--prometheus", api, "--range", rangeSeconds + "s", "--format", "json");
      assertThat(fleet.exit()).as(fleet.err()).isZero();
      assertThat(fleet.err()).doesNotContain("Exception");
      Map<String, Object> report = json(fleet.out());
      assertThat(report.get("pods")).isEqualTo(3.0);
      assertThat(report.get("pods_counted_from_first_sample")).as("every pod started inside the range: exact").isEqualTo(0.0);
      assertThat(report.get("range_seconds")).isEqualTo((double) rangeSeconds);

      // What the applications counted, summed over the pods: the resync scenarios say their reconciles as they end.
      Map<String, Long> counted = new TreeMap<>();
      Map<String, Long> reconciles = new TreeMap<>();
      for (AgentProcess pod : pods) {
        assertThat(pod.closeInputAndWait(WAIT)).as(pod.transcript()).isZero();
        pod.truth().forEach((series, count) -> counted.merge(series, count, Long::sum));
        pod.stdout().stream().filter(l -> l.startsWith("reconciles ")).map(l -> l.split(" ")).forEach(l -> reconciles.merge(l[1], Long.parseLong(l[2]), Long::sum));
      }
      assertThat(pods).as("each replica of the resync scenario says the reconciles of its two controllers")
          .map(pod -> pod.stdout().stream().filter(l -> l.startsWith("reconciles ")).count()).containsExactly(2L, 2L, 0L);
      reconciles.put(OPERATOR, counted.get("reconciles_of{" + OPERATOR + "}"));
      assertThat(reconciles).as("both replicas' sample controllers and the operator reconciled").containsOnlyKeys(EVERY_UPDATE, RV_FILTER, OPERATOR).allSatisfy((c, n) -> assertThat(n).isPositive());
      assertApplicationCounts(flat(report), counted, reconciles);

      List<Map<String, Object>> own = new ArrayList<>();
      for (Path scrape : finalScrapes) {
        AttachIT.Command pod = AttachIT.agentCommand("report", "--format", "json", scrape.toString());
        assertThat(pod.exit()).as(pod.err()).isZero();
        own.add(json(pod.out()));
      }
      assertSameCounts(flat(report), sum(own));

      // By the scenarios' design: configmap-every-update enqueues every update, the rv filter and the audit
      // handler drop the no-op ones, and the operator's informer has no resync, so it sees none.
      Map<String, Object> verdicts = new TreeMap<>();
      ((List<?>) report.get("handlers")).forEach(h -> verdicts.put((String) ((Map<?, ?>) h).get("handler"), ((Map<?, ?>) h).get("verdict")));
      assertThat(verdicts)
          .isEqualTo(Map.of(EVERY_UPDATE, "enqueues_noops", RV_FILTER, "filters_noops", AUDIT, "filters_noops", OPERATOR, "no_noops_seen"));
      long enqueued = count(counted, "informer_noop_updates_total", "handler", EVERY_UPDATE);
      AttachIT.Command gate = AttachIT.agentCommand("report", "--prometheus", api, "--range", rangeSeconds + "s", "--fail-on", "enqueues-noops");
      assertThat(gate.exit()).as(gate.err()).isEqualTo(1);
      assertThat(gate.err().lines().filter(l -> l.startsWith("resync-meter report: fail: ")))
          .containsExactly("resync-meter report: fail: handler ConfigMap " + EVERY_UPDATE + " enqueues no-op updates (" + enqueued + " of " + enqueued + ")");
    } finally {
      for (AgentProcess pod : pods) {
        AgentProcess.end(pod);
      }
      if (prometheus != null) {
        prometheus.close();
      }
    }
  }

  /**
   * Every count of the fleet's report is what the applications counted ({@code counted}: their
   * series; {@code reconciles}: each controller's own count of its reconciles), a count they did not
   * see is zero, and the other way round. The sample controllers (SampleController) read their object
   * once from the API server in each reconcile, write nothing and have no timer; configmap-rv-filter
   * reconciles on changes only. Left out: seconds (the applications time nothing), and which of
   * configmap-every-update's reconciles came from a no-op update, which is the work queue's doing (it
   * reconciles a key queued twice once); those reconciles add up to its own count all the same.
   */
  private static void assertApplicationCounts(Map<String, Object> fleet, Map<String, Long> counted, Map<String, Long> reconciles) {
    Map<String, Double> expected = new TreeMap<>();
    for (Map<String, String> handler : labelsOf(counted, "informer_notifications_total")) {
      String kind = handler.get("kind");
      String name = handler.get("handler");
      String path = "handlers/" + kind + " " + name + "/";
      expected.put(path + "updates", (double) count(counted, "informer_updates_total", "kind", kind, "handler", name));
      expected.put(path + "noop_updates", (double) count(counted, "informer_noop_updates_total", "kind", kind, "handler", name));
      for (String cause : List.of("resync", "relist", "watch")) {
        expected.put(path + "noop_updates_by_cause/" + cause, (double) count(counted, "informer_noop_updates_total", "kind", kind, "handler", name, "cause", cause));
      }
      for (String outcome : List.of("enqueued", "dropped", "unknown")) {
        expected.put(path + outcome, (double) count(counted, "informer_noop_updates_total", "kind", kind, "handler", name, "outcome", outcome));
      }
    }
    String informer = "informers/ConfigMap/";
    expected.put(informer + "resyncs", (double) count(counted, "informer_resyncs_total", "kind", "ConfigMap"));
    expected.put(informer + "relist_notifications_lost", (double) count(counted, "informer_relist_notifications_lost_total", "kind", "ConfigMap"));
    for (String reason : List.of("expired", "error")) {
      expected.put(informer + "relists_by_reason/" + reason, (double) count(counted, "informer_relists_total", "kind", "ConfigMap", "reason", reason));
    }
    reconciles.forEach((controller, n) -> expected.put("controllers/" + controller + "/reconciles", (double) n));
    for (String trigger : List.of("change", "requeue", "periodic", "resync_noop", "relist_noop", "unknown")) {
      String path = "controllers/" + OPERATOR + "/";
      expected.put(path + "by_trigger/" + trigger + "/reconciles", (double) count(counted, "controller_reconcile_total", "controller", OPERATOR, "trigger", trigger));
      for (String effect : List.of("none", "unchanged", "changed")) {
        expected.put(path + "effects/" + trigger + "/" + effect, (double) count(counted, "controller_reconcile_effect_total", "controller", OPERATOR, "trigger", trigger, "effect", effect));
      }
    }
    String operator = "controllers/" + OPERATOR + "/";
    expected.put(operator + "periodic_reconciles", expected.get(operator + "by_trigger/periodic/reconciles"));
    expected.put(operator + "api_requests", (double) count(counted, "controller_reconcile_api_requests_total", "controller", OPERATOR));
    expected.put(operator + "periodic_api_requests", (double) count(counted, "controller_reconcile_api_requests_total", "controller", OPERATOR, "trigger", "periodic"));
    for (String controller : List.of(EVERY_UPDATE, RV_FILTER)) {
      expected.put("controllers/" + controller + "/api_requests", (double) reconciles.get(controller));
    }
    expected.put("controllers/" + RV_FILTER + "/by_trigger/change/reconciles", (double) reconciles.get(RV_FILTER));
    expected.put("controllers/" + RV_FILTER + "/effects/change/none", (double) reconciles.get(RV_FILTER));

    String queued = "controllers/" + EVERY_UPDATE + "/";
    Map<String, Double> counts = new TreeMap<>();
    fleet.forEach((path, value) -> counts.put(path, (Double) value));
    counts.keySet().removeIf(path -> path.contains("seconds"));
    Map<String, Double> byQueue = new TreeMap<>(counts);
    byQueue.keySet().removeIf(path -> !path.startsWith(queued + "by_trigger/") && !path.startsWith(queued + "effects/") && !path.startsWith(queued + "noop_"));
    counts.keySet().removeAll(byQueue.keySet());
    Set<String> paths = new TreeSet<>(counts.keySet());
    paths.addAll(expected.keySet());
    Map<String, Double> reported = new TreeMap<>();
    Map<String, Double> counting = new TreeMap<>();
    paths.forEach(path -> {
      reported.put(path, counts.getOrDefault(path, 0.0));
      counting.put(path, expected.getOrDefault(path, 0.0));
    });
    assertThat(reported).as("the fleet's counts against the applications' own").isEqualTo(counting);
    double everyUpdate = reconciles.get(EVERY_UPDATE);
    assertThat(sumOf(byQueue, queued + "by_trigger/", "/reconciles")).as(EVERY_UPDATE + "'s reconciles by trigger").isEqualTo(everyUpdate);
    assertThat(sumOf(byQueue, queued + "effects/", "/none")).as(EVERY_UPDATE + ": each reconcile wrote nothing").isEqualTo(everyUpdate);
    assertThat(byQueue.get(queued + "noop_reconciles")).as(EVERY_UPDATE + "'s reconciles on no-op updates").isPositive();
  }

  /** The sum of the counts whose path starts with {@code prefix} and ends with {@code suffix}. */
  private static double sumOf(Map<String, Double> counts, String prefix, String suffix) {
    return counts.entrySet().stream().filter(e -> e.getKey().startsWith(prefix) && e.getKey().endsWith(suffix)).mapToDouble(Map.Entry::getValue).sum();
  }

  /** The labels of each series of {@code family} the applications counted. */
  private static List<Map<String, String>> labelsOf(Map<String, Long> counted, String family) {
    return counted.keySet().stream().filter(s -> s.startsWith(family + "{")).map(FleetReportIT::labels).toList();
  }

  /** The sum of the applications' counts of {@code family}'s series whose labels include these pairs. */
  private static long count(Map<String, Long> counted, String family, String... labelPairs) {
    long sum = 0;
    for (Map.Entry<String, Long> e : counted.entrySet()) {
      Map<String, String> labels = labels(e.getKey());
      boolean matches = e.getKey().startsWith(family + "{");
      for (int i = 0; i < labelPairs.length && matches; i += 2) {
        matches = labelPairs[i + 1].equals(labels.get(labelPairs[i]));
      }
      sum += matches ? e.getValue() : 0;
    }
    return sum;
  }

  private static Map<String, String> labels(String series) {
    Map<String, String> labels = new TreeMap<>();
    Matcher label = LABEL.matcher(series);
    while (label.find()) {
      labels.put(label.group(1), label.group(2));
    }
    return labels;
  }

  /**
   * The pod's scrape once two in a row, a second apart, are the same: the reconciles its last step
   * queued may still run after it said it was done.
   */
  private static String settled(String url) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    String last = Scrape.of(url).body();
    while (System.nanoTime() < deadline) {
      Thread.sleep(1000);
      String next = Scrape.of(url).body();
      if (counts(next).equals(counts(last))) {
        return next;
      }
      last = next;
    }
    throw new AssertionError("the counts of " + url + " did not settle");
  }

  /** The scrape's counter and gauge lines, without the agent's own timing histograms' changing sums. */
  private static List<String> counts(String body) {
    return body.lines().filter(l -> !l.startsWith("#") && !l.startsWith("rest_client_request_duration") && !l.startsWith("workqueue_")).toList();
  }

  /** Counts equal exactly; seconds to the report's six decimals (each pod's value rounded once). */
  private static void assertSameCounts(Map<String, Object> fleet, Map<String, Object> summed) {
    assertThat(new TreeMap<>(fleet).keySet()).isEqualTo(new TreeMap<>(summed).keySet());
    for (Map.Entry<String, Object> e : summed.entrySet()) {
      if (e.getKey().contains("seconds")) {
        assertThat((Double) fleet.get(e.getKey())).as(e.getKey()).isCloseTo((Double) e.getValue(), within(3e-6));
      } else {
        assertThat(fleet.get(e.getKey())).as(e.getKey()).isEqualTo(e.getValue());
      }
    }
  }

  /** The reports' counts added up, by the paths of {@link #flat}. */
  private static Map<String, Object> sum(List<Map<String, Object>> reports) {
    Map<String, Object> sum = new TreeMap<>();
    for (Map<String, Object> report : reports) {
      flat(report).forEach((path, value) -> sum.merge(path, value, (a, b) -> (Double) a + (Double) b));
    }
    return sum;
  }

  /**
   * The report's numbers by path: {@code controllers/NAME/FIELD}, {@code handlers/KIND HANDLER/FIELD},
   * {@code informers/KIND/FIELD}, nested maps one level further ({@code .../by_trigger/change/reconciles}).
   */
  private static Map<String, Object> flat(Map<String, Object> report) {
    Map<String, Object> flat = new TreeMap<>();
    for (String list : List.of("handlers", "controllers", "informers")) {
      for (Object item : (List<?>) report.get(list)) {
        Map<?, ?> entry = (Map<?, ?>) item;
        String name = switch (list) {
          case "handlers" -> entry.get("kind") + " " + entry.get("handler");
          case "controllers" -> (String) entry.get("controller");
          default -> (String) entry.get("kind");
        };
        entry.forEach((field, value) -> {
          if (!NOT_SUMMED.contains(field)) {
            put(flat, list + "/" + name + "/" + field, value);
          }
        });
      }
    }
    return flat;
  }

  private static void put(Map<String, Object> flat, String path, Object value) {
    if (value instanceof Map<?, ?> nested) {
      nested.forEach((k, v) -> put(flat, path + "/" + k, v));
    } else if (value instanceof Double) {
      flat.put(path, value);
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> json(String text) throws Json.NotJson {
    return (Map<String, Object>) Json.parse(text);
  }

  /** Waits until Prometheus holds, for each of the three targets, a sample scraped after {@code millis}. */
  private static void awaitScrapedAfter(Prometheus prometheus, long millis) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    String last = "";
    while (System.nanoTime() < deadline) {
      last = prometheus.query("timestamp(resync_meter_start_time_seconds)");
      Map<?, ?> data = (Map<?, ?>) json(last).get("data");
      List<?> result = (List<?>) data.get("result");
      long scrapedAfter = result.stream().map(r -> (List<?>) ((Map<?, ?>) r).get("value")).filter(v -> Double.parseDouble((String) v.get(1)) * 1000 > millis).count();
      if (scrapedAfter == 3) {
        return;
      }
      Thread.sleep(250);
    }
    throw new AssertionError("Prometheus did not scrape the three pods' final counts within 30 s: " + last + "\n" + prometheus.log());
  }
}
