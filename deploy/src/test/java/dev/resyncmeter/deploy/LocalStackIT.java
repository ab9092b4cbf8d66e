package dev.resyncmeter.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Debian's {@code prometheus} runs the shipped configurations against the demo with the real agent:
 * the local stack's, with only the target address substituted, and the cluster's pod job, with
 * Kubernetes discovery replaced by file discovery of pods described by the same meta labels.
 */
class LocalStackIT {

  private static final List<Process> processes = new ArrayList<>();
  private static Path work;
  private static int agentPort;

  @BeforeAll
  static void startTheDemo() throws Exception {
    Tools.require("prometheus", "apt-get install -y prometheus");
    work = Files.createTempDirectory("resync-meter-local-stack");
    agentPort = freePort();
    processes.add(
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-javaagent:" + jar("resyncmeter.agentJar") + "=host=127.0.0.1,port=" + agentPort,
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-jar", jar("resyncmeter.examplesJar").toString(),
                "demo", "--metrics-url", "http://127.0.0.1:" + agentPort + "/metrics", "--seconds", "120")
            .redirectErrorStream(true)
            .redirectOutput(work.resolve("demo.log").toFile())
            .start());
  }

  @AfterAll
  static void stop() throws Exception {
    for (Process process : processes) {
      process.destroy();
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
    if (work != null) {
      try (Stream<Path> files = Files.walk(work)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
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
    int port = freePort();
    Path dir = config.getParent();
    processes.add(
        new ProcessBuilder(
                Tools.require("prometheus", "apt-get install -y prometheus").toString(),
                "--config.file=" + config,
                "--storage.tsdb.path=" + dir.resolve("data"),
                "--web.listen-address=127.0.0.1:" + port)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("prometheus.log").toFile())
            .start());
    String api = "http://127.0.0.1:" + port;
    for (int attempt = 0; attempt < 60; attempt++) {
      try {
        if (get(api + "/-/ready") != null) {
          return api;
        }
      } catch (IOException notYet) {
        Thread.sleep(500);
      }
    }
    throw new AssertionError("prometheus did not get ready:\n" + Files.readString(dir.resolve("prometheus.log")));
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
    throw new AssertionError(query + " gave " + result + "\ndemo:\n" + Files.readString(work.resolve("demo.log")));
  }

  private static JsonNode get(String url) throws IOException {
    HttpURLConnection connection = (HttpURLConnection) URI.create(url).toURL().openConnection();
    connection.setConnectTimeout(2_000);
    connection.setReadTimeout(10_000);
    try (InputStream in = connection.getInputStream()) {
      byte[] body = in.readAllBytes();
      return url.endsWith("/-/ready") ? Yaml.MAPPER.createObjectNode() : Yaml.MAPPER.readTree(body);
    } finally {
      connection.disconnect();
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  private static Path jar(String property) {
    Path jar = Path.of(System.getProperty(property));
    assertThat(jar).as("built by the modules before: " + property).exists();
    return jar;
  }
}
