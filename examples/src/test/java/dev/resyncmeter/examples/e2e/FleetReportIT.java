package dev.resyncmeter.examples.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.resyncmeter.report.Json;
import dev.resyncmeter.testkit.Net;
import dev.resyncmeter.testkit.Prometheus;
import dev.resyncmeter.testkit.Scrape;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The fleet's report from a real Prometheus (Debian's, on loopback, scraping every second): two
 * replicas of the resync scenario's sample controllers in one job and the JOSDK scenario in another,
 * each a JVM with the agent. When all have done their work and Prometheus has scraped their final
 * counts, {@code report --prometheus} over a range covering their whole life must equal, number by
 * number, the sum of the reports of each pod's own final scrape.
 */
class FleetReportIT {

  private static final Duration WAIT = Duration.ofSeconds(120);
  /** The report's fields that are not counts added over pods. */
  private static final Set<String> NOT_SUMMED = Set.of("resync_period_seconds", "verdict", "verdict_text", "noop_verdict", "noop_verdict_text", "timer_verdict", "timer_verdict_text");

  @Test
  void theReportFromPrometheusIsTheSumOfEachPodsOwnReport() throws Exception {
    long began = System.currentTimeMillis();
    Path dir = Files.createTempDirectory("resync-meter-fleet");
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

      List<Map<String, Object>> own = new ArrayList<>();
      for (Path scrape : finalScrapes) {
        AttachIT.Command pod = AttachIT.agentCommand("report", "--format", "json", scrape.toString());
        assertThat(pod.exit()).as(pod.err()).isZero();
        own.add(json(pod.out()));
      }
      Map<String, Object> summed = sum(own);
      assertSameCounts(flat(report), summed);
      // the two replicas' sample controllers are in it twice over: not a fleet of one
      assertThat((Double) flat(own.get(0)).get("controllers/configmap-every-update/noop_reconciles")).isPositive();
      assertThat((Double) summed.get("controllers/configmap-every-update/noop_reconciles"))
          .isEqualTo((Double) flat(own.get(0)).get("controllers/configmap-every-update/noop_reconciles") + (Double) flat(own.get(1)).get("controllers/configmap-every-update/noop_reconciles"));
      assertThat(summed.keySet()).anyMatch(k -> k.startsWith("controllers/configmap-operator/"));

      // the gate on the same fleet: each handler that enqueues no-op updates fails it, no filtering one does
      AttachIT.Command gate = AttachIT.agentCommand("report", "--prometheus", api, "--range", rangeSeconds + "s", "--fail-on", "enqueues-noops");
      assertThat(gate.exit()).as(gate.err()).isEqualTo(1);
      List<String> failed = gate.err().lines().filter(l -> l.startsWith("resync-meter report: fail: handler ")).toList();
      List<String> enqueuing = new ArrayList<>();
      List<String> filtering = new ArrayList<>();
      for (Object h : (List<?>) report.get("handlers")) {
        Map<?, ?> handler = (Map<?, ?>) h;
        String name = "handler " + handler.get("kind") + " " + handler.get("handler") + " ";
        if ("enqueues_noops".equals(handler.get("verdict"))) {
          enqueuing.add(name);
        } else if ("filters_noops".equals(handler.get("verdict"))) {
          filtering.add(name);
        }
      }
      assertThat(enqueuing).isNotEmpty();
      assertThat(filtering).isNotEmpty();
      assertThat(failed).hasSameSizeAs(enqueuing);
      enqueuing.forEach(name -> assertThat(failed).anyMatch(line -> line.contains(name)));
      filtering.forEach(name -> assertThat(failed).noneMatch(line -> line.contains(name)));
    } finally {
      for (AgentProcess pod : pods) {
        AgentProcess.end(pod);
      }
      if (prometheus != null) {
        prometheus.close();
      }
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /** Counts equal exactly; seconds to the report's six decimals (each pod's value rounded once). */
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
