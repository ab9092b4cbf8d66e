package dev.resyncmeter.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.resyncmeter.testkit.ForkedJvm;
import dev.resyncmeter.testkit.Net;
import dev.resyncmeter.testkit.Prometheus;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Debian's {@code prometheus} runs the shipped configurations against the demo with the real agent:
 * the local stack's, with only the target address substituted, and the cluster's pod job, with
 * Kubernetes discovery replaced by file discovery of pods described by the same meta labels.
 */
class LocalStackIT {

  private static final List<Process> processes = new ArrayList<>();
  private static final List<Prometheus> prometheuses = new ArrayList<>();
  private static ForkedJvm demo;
  /** Processes the test did not start itself: run-prometheus's Prometheus, ended here should the script not end it. */
  private static final List<ProcessHandle> children = new ArrayList<>();
  /** The configurations, TSDBs and logs; JUnit removes it after the class, failed or not. */
  @TempDir static Path work;
  private static int agentPort;

  @BeforeAll
  static void startTheDemo() throws Exception {
    Tools.prometheus();
    agentPort = Net.freePort();
    demo =
        ForkedJvm.start(
            List.of(
                ForkedJvm.java().toString(),
                "-javaagent:" + jar("resyncmeter.agentJar") + "=host=127.0.0.1,port=" + agentPort,
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-jar", jar("resyncmeter.examplesJar").toString(),
                "demo", "--metrics-url", "http://127.0.0.1:" + agentPort + "/metrics", "--seconds", "120"),
            Map.of(),
            ForkedJvm.AGENT_VARIABLES);
  }

  @AfterAll
  static void stop() throws Exception {
    children.forEach(ProcessHandle::destroy);
    for (Prometheus prometheus : prometheuses) {
      prometheus.close();
    }
    for (Process process : processes) {
      ForkedJvm.stop(process, Duration.ofSeconds(20));
    }
    if (demo != null) {
      demo.stop(Duration.ofSeconds(20));
    }
  }

  @Test
  void theLocalStacksPrometheusScrapesTheAgentAndEvaluatesTheRules() throws Exception {
    // The repository's layout, so that the config's relative rule path resolves as it does in compose.
    Path root = Files.createDirectories(work.resolve("local-stack"));
    Files.createDirectories(root.resolve("deploy/local"));
    Files.createSymbolicLink(root.resolve("dashboards"), Tools.ROOT.resolve("dashboards"));
    String shipped = Files.readString(Tools.DEPLOY.resolve("local/prometheus.yml"));
    assertThat(shipped).containsOnlyOnce("host.docker.internal:9464");
    Path config = Files.writeString(root.resolve("deploy/local/prometheus.yml"), shipped.replace("host.docker.internal:9464", "127.0.0.1:" + agentPort));
    String api = prometheus(config);

    String instance = "127.0.0.1:" + agentPort;
    JsonNode info = await(api, "resync_meter_info", r -> r.size() > 0);
    assertThat(info).allSatisfy(series -> {
      assertThat(series.at("/metric/job").asText()).isEqualTo("resync-meter");
      assertThat(series.at("/metric/instance").asText()).isEqualTo(instance);
    });
    assertThat(info).extracting(s -> s.at("/metric/client").asText()).contains("client-java");
    JsonNode groups = get(api + "/api/v1/rules").at("/data/groups");
    assertThat(groups).extracting(g -> g.path("name").asText()).containsExactlyInAnyOrder("resync-meter.recording", "resync-meter.alerts");
    assertThat(groups).allSatisfy(g -> assertThat(g.path("rules")).allSatisfy(r -> assertThat(r.path("health").asText()).isNotEqualTo("err")));
    // The sample controller that enqueues every update has a resync cost, recorded per controller.
    JsonNode cost = await(api, "resync_meter:resync_cost_seconds:rate5m{controller=\"configmap-every-update\"}", r -> r.size() == 1);
    assertThat(cost.get(0).at("/metric/job").asText()).isEqualTo("resync-meter");
  }

  @Test
  void theClusterPodJobScrapesOnlyTheLabelledPodsNamedPortAndKeepsNamespacePodAndContainer() throws Exception {
    Path dir = Files.createDirectories(work.resolve("pod-job"));
    String address = "127.0.0.1:" + agentPort;
    Path targets =
        Files.writeString(
            dir.resolve("targets.json"),
            "[" + String.join(",",
                pod(address, "true", "resync-meter", "Running", "controller-7d9f-abcde"),
                pod("127.0.0.1:1", null, "resync-meter", "Running", "unlabelled"),
                pod("127.0.0.1:2", "true", "http", "Running", "other-port"),
                pod("127.0.0.1:3", "true", "resync-meter", "Pending", "pending"))
                + "]");
    String job = PrometheusConfigsTest.withFileDiscovery(Files.readString(PrometheusConfigsTest.POD_JOB), targets);
    // the job's 30 s interval, shortened so that the test need not wait for it
    Path config = Files.writeString(dir.resolve("prometheus.yml"), job.replace("scrape_interval: 30s", "scrape_interval: 1s"));
    String api = prometheus(config);

    JsonNode info = await(api, "resync_meter_info", r -> r.size() > 0);
    assertThat(info).allSatisfy(series -> {
      assertThat(series.at("/metric/job").asText()).isEqualTo("resync-meter");
      assertThat(series.at("/metric/instance").asText()).isEqualTo(address);
      assertThat(series.at("/metric/namespace").asText()).isEqualTo("team-a");
      assertThat(series.at("/metric/pod").asText()).isEqualTo("controller-7d9f-abcde");
      assertThat(series.at("/metric/container").asText()).isEqualTo("controller");
    });
    JsonNode active = get(api + "/api/v1/targets?state=active").at("/data/activeTargets");
    assertThat(active).extracting(t -> t.at("/labels/pod").asText()).containsExactly("controller-7d9f-abcde");
  }

  /**
   * {@code deploy/local/run-prometheus} as a user runs it against the agent: the target up and the
   * repository's rules loaded; stopped by its PID with SIGTERM (and again with SIGINT), it stops
   * Prometheus and removes its data directory.
   */
  @Test
  void runPrometheusScrapesTheAgentWithTheRulesAndLeavesNothingBehindWhenStopped() throws Exception {
    Tools.prometheus();
    String instance = "127.0.0.1:" + agentPort;
    List<String> signals = List.of("TERM", "INT");
    if (ignoresSigint()) {
      // Inherited: a shell that started this build in the background without job control made SIGINT
      // ignored, and a shell cannot trap a signal ignored on its entry. Ctrl-C reaches the script only
      // from a terminal, where it is not ignored.
      System.err.println("LocalStackIT: this JVM ignores SIGINT, and so would the script: stopped with SIGTERM only");
      signals = List.of("TERM");
    }
    for (String signal : signals) {
      Path tmp = Files.createDirectories(work.resolve("run-prometheus-tmp-" + signal));
      Path log = work.resolve("run-prometheus-" + signal + ".log");
      int port = Net.freePort();
      ProcessBuilder builder =
          new ProcessBuilder("bash", RunPrometheusTest.SCRIPT.toString(), "--listen", "127.0.0.1:" + port, instance)
              .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
              .redirectErrorStream(true)
              .redirectOutput(log.toFile());
      builder.environment().put("TMPDIR", tmp.toString());
      Process script = builder.start();
      processes.add(script);
      String api = "http://127.0.0.1:" + port;
      Prometheus.awaitReady(api, script, () -> read(log));
      List<ProcessHandle> started = script.toHandle().children().toList();
      children.addAll(started);
      assertThat(started).as("the script's one child").hasSize(1);
      ProcessHandle prometheus = started.get(0);
      assertThat(prometheus.info().command()).hasValueSatisfying(c -> assertThat(c).endsWith("/prometheus"));
      try (Stream<Path> dirs = Files.list(tmp)) {
        assertThat(dirs.toList()).as("its data directory").singleElement().satisfies(d -> assertThat(d.getFileName().toString()).startsWith("run-prometheus."));
      }
      if (signal.equals("TERM")) {
        JsonNode target = awaitJson(api + "/api/v1/targets?state=active", t -> t.at("/data/activeTargets/0/health").asText().equals("up"), log);
        assertThat(target.at("/data/activeTargets")).singleElement().satisfies(t -> {
          assertThat(t.at("/labels/job").asText()).isEqualTo("resync-meter");
          assertThat(t.at("/labels/instance").asText()).isEqualTo(instance);
        });
        // every rule of the repository's file, by group, loaded and not failing
        Map<String, List<String>> loaded = new HashMap<>();
        for (JsonNode group : get(api + "/api/v1/rules").at("/data/groups")) {
          List<String> rules = loaded.computeIfAbsent(group.path("name").asText(), g -> new ArrayList<>());
          for (JsonNode rule : group.path("rules")) {
            assertThat(rule.path("health").asText()).as(rule.toString()).isNotEqualTo("err");
            rules.add(rule.path("name").asText());
          }
        }
        Map<String, List<String>> shipped = new HashMap<>();
        for (JsonNode group : Yaml.documents(Tools.ROOT.resolve("dashboards/rules/resync-meter.rules.yml")).get(0).path("groups")) {
          List<String> rules = shipped.computeIfAbsent(group.path("name").asText(), g -> new ArrayList<>());
          for (JsonNode rule : group.path("rules")) {
            rules.add(rule.has("record") ? rule.path("record").asText() : rule.path("alert").asText());
          }
        }
        assertThat(shipped).isNotEmpty();
        assertThat(loaded).isEqualTo(shipped);
        script.destroy(); // SIGTERM
      } else {
        assertThat(new ProcessBuilder("kill", "-INT", Long.toString(script.pid())).start().waitFor(10, TimeUnit.SECONDS)).isTrue();
      }
      assertThat(script.waitFor(30, TimeUnit.SECONDS)).as("the script ends on SIG" + signal + "\n" + Files.readString(log)).isTrue();
      assertThat(script.exitValue()).isEqualTo(signal.equals("TERM") ? 143 : 130);
      assertThat(prometheus.isAlive()).as("prometheus after SIG" + signal + " to the script").isFalse();
      assertThat(tmp).as("the data directory after SIG" + signal).isEmptyDirectory();
      assertThat(Files.readString(log)).contains("msg=\"See you next time!\"");
    }
  }

  /** Gets {@code url} until its JSON satisfies {@code done}, for at most 60 s. */
  private static JsonNode awaitJson(String url, Predicate<JsonNode> done, Path log) throws Exception {
    JsonNode body = null;
    for (int attempt = 0; attempt < 120; attempt++) {
      body = get(url);
      if (done.test(body)) {
        return body;
      }
      Thread.sleep(500);
    }
    throw new AssertionError(url + " gave " + body + "\n" + Files.readString(log));
  }

  private static String pod(String address, String scrapeLabel, String portName, String phase, String name) {
    return "{\"targets\":[\"" + address + "\"],\"labels\":{"
        + (scrapeLabel == null ? "" : "\"__meta_kubernetes_pod_label_resync_meter_dev_scrape\":\"" + scrapeLabel + "\",")
        + "\"__meta_kubernetes_pod_container_port_name\":\"" + portName + "\","
        + "\"__meta_kubernetes_pod_phase\":\"" + phase + "\","
        + "\"__meta_kubernetes_namespace\":\"team-a\","
        + "\"__meta_kubernetes_pod_name\":\"" + name + "\","
        + "\"__meta_kubernetes_pod_container_name\":\"controller\"}}";
  }

  /** Starts Debian's prometheus on a free loopback port with {@code config}; its API's base URL. */
  private static String prometheus(Path config) throws Exception {
    Prometheus prometheus = Prometheus.start(config);
    prometheuses.add(prometheus);
    return prometheus.api();
  }

  private static String read(Path log) {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "(no " + log + ")";
    }
  }

  /** Queries until the result satisfies {@code done}, for at most 60 s. */
  private static JsonNode await(String api, String query, Predicate<JsonNode> done) throws Exception {
    JsonNode result = null;
    for (int attempt = 0; attempt < 120; attempt++) {
      result = get(api + "/api/v1/query?query=" + URLEncoder.encode(query, StandardCharsets.UTF_8)).at("/data/result");
      if (done.test(result)) {
        return result;
      }
      Thread.sleep(500);
    }
    throw new AssertionError(query + " gave " + result + "\ndemo:\n" + demo.transcript());
  }

  /** The JSON of a GET that answers 200; an error status fails as an IOException. */
  private static JsonNode get(String url) throws IOException {
    Net.Response response = Net.get(url, null, Duration.ofSeconds(10));
    if (response.status() >= 400) {
      throw new IOException("GET " + url + ": " + response.status() + " " + response.body());
    }
    return Yaml.MAPPER.readTree(response.body());
  }

  private static Path jar(String property) {
    Path jar = Path.of(System.getProperty(property));
    assertThat(jar).as("copied into target/ at package: " + property).exists();
    return jar;
  }

  /** Whether this process ignores SIGINT (Linux: bit 2 of SigIgn in /proc/self/status); false when it cannot be told. */
  static boolean ignoresSigint() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("SigIgn:")) {
          return (Long.parseUnsignedLong(line.substring("SigIgn:".length()).trim(), 16) & 0x2) != 0;
        }
      }
    } catch (IOException | RuntimeException cannotTell) {
      return false;
    }
    return false;
  }
}
