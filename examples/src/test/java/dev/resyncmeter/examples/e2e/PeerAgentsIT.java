package dev.resyncmeter.examples.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.resyncmeter.testkit.Scrape;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * resync-meter beside the agents production JVMs already carry, each from Maven Central with its
 * defaults, loaded before resync-meter (the OpenTelemetry Operator's way, through
 * {@code JAVA_TOOL_OPTIONS}, and on the command line) and after it. Each end-to-end scenario must
 * export exactly the application's own counts with every instrumentation part on, resync-meter must
 * print nothing but its start line and count no fault, and the other agent must still do its own
 * work: serve its metrics, or send to its (here: recording) server. The Java 25 pass runs the
 * OpenTelemetry orders again with the other scenario.
 */
class PeerAgentsIT {

  enum Peer {
    OPENTELEMETRY("opentelemetry-javaagent-2.33.1.jar"),
    OPENTELEMETRY_2_10("opentelemetry-javaagent-2.10.0.jar"),
    JMX_EXPORTER("jmx_prometheus_javaagent-1.0.1.jar"),
    ELASTIC_APM("elastic-apm-agent-1.55.1.jar"),
    PYROSCOPE("agent-2.9.2.jar");

    final String jar;

    Peer(String jar) {
      this.jar = jar;
    }
  }

  enum Order {
    /** The JVM reads {@code JAVA_TOOL_OPTIONS} before the command line: the peer loads first. */
    PEER_FIRST_IN_JAVA_TOOL_OPTIONS,
    PEER_FIRST,
    PEER_SECOND
  }

  enum Scenario {
    RESYNC,
    RECONCILE,
    /** Echoes of the controllers' own writes: their answers read beside a peer that wraps OkHttp too. */
    ECHO
  }

  record Run(Peer peer, Order order, Scenario scenario) {
    @Override
    public String toString() {
      return peer + " " + order + ", " + scenario.name().toLowerCase() + " scenario";
    }
  }

  /**
   * Each order runs one scenario per JDK, so that every peer meets both scenarios and every order both
   * JDKs' loaders without running every product of them: a JVM per run is what CI's time goes to. The
   * OpenTelemetry orders run the resync scenario on Java 17 and the reconcile scenario on Java 25 (or the
   * other way round), the other peers one scenario first and the other second.
   */
  static Stream<Run> runs() {
    boolean onJava25 = "25".equals(System.getProperty("resyncmeter.testJdk"));
    List<Run> runs = new ArrayList<>();
    Scenario[] alternating = onJava25 ? new Scenario[] {Scenario.RECONCILE, Scenario.RESYNC} : new Scenario[] {Scenario.RESYNC, Scenario.RECONCILE};
    Order[] orders = Order.values();
    for (int i = 0; i < orders.length; i++) {
      runs.add(new Run(Peer.OPENTELEMETRY, orders[i], alternating[i % 2]));
    }
    if (onJava25) {
      return runs.stream();
    }
    runs.add(new Run(Peer.OPENTELEMETRY, Order.PEER_FIRST, Scenario.ECHO));
    // The version this failure was first reported with, loaded as the OpenTelemetry Operator loads it.
    for (Scenario scenario : List.of(Scenario.RESYNC, Scenario.RECONCILE)) {
      runs.add(new Run(Peer.OPENTELEMETRY_2_10, Order.PEER_FIRST_IN_JAVA_TOOL_OPTIONS, scenario));
    }
    for (Peer peer : List.of(Peer.JMX_EXPORTER, Peer.ELASTIC_APM, Peer.PYROSCOPE)) {
      runs.add(new Run(peer, Order.PEER_FIRST, Scenario.RESYNC));
      runs.add(new Run(peer, Order.PEER_SECOND, Scenario.RECONCILE));
    }
    return runs.stream();
  }

  @TempDir Path temp;

  @ParameterizedTest(name = "{0}")
  @MethodSource("runs")
  void bothAgentsWorkAndTheScenarioIsCountedExactly(Run run) throws Exception {
    try (PeerSetup peer = new PeerSetup(run.peer, temp)) {
      if (run.scenario == Scenario.RESYNC) {
        try (AgentProcess scenario = start(run, peer, ExactCounts.RESYNC_SCENARIO)) {
          Scrape scrape = ExactCounts.resyncScenarioScrape(scenario);

          ExactCounts.assertResyncScenario(scenario.truth(), scrape);
          assertBothAgentsDidTheirWork(peer, scenario, scrape);
        }
      } else if (run.scenario == Scenario.ECHO) {
        try (AgentProcess scenario = start(run, peer, "echo-scenario")) {
          Scrape scrape = EchoesIT.scrapeWhenDone(scenario);
          Map<String, Long> truth = scenario.truth();

          ExactCounts.assertExported(truth, scrape);
          ExactCounts.assertNothingElse(truth, scrape, EchoesIT.OWN_WRITE_FAMILIES);
          assertBothAgentsDidTheirWork(peer, scenario, scrape);
        }
      } else {
        try (AgentProcess scenario = start(run, peer, ExactCounts.RECONCILE_SCENARIO)) {
          Scrape scrape = ExactCounts.reconcileScenarioScrape(scenario);

          ExactCounts.assertReconcileScenario(scenario.truth(), scrape);
          assertBothAgentsDidTheirWork(peer, scenario, scrape);
        }
      }
    }
  }

  private static AgentProcess start(Run run, PeerSetup peer, String... command) throws IOException {
    Map<String, String> environment = new HashMap<>(peer.environment);
    List<String> before = List.of();
    List<String> after = List.of();
    switch (run.order) {
      case PEER_FIRST_IN_JAVA_TOOL_OPTIONS -> environment.put("JAVA_TOOL_OPTIONS", String.join(" ", peer.options));
      case PEER_FIRST -> before = peer.options;
      case PEER_SECOND -> after = peer.options;
    }
    return AgentProcess.startBeside(AgentProcess.javaHome(), before, after, environment, command);
  }

  private static void assertBothAgentsDidTheirWork(PeerSetup peer, AgentProcess scenario, Scrape scrape) throws Exception {
    assertThat(scenario.agentLines())
        .as("resync-meter's stderr lines\n%s", scenario.transcript())
        .singleElement()
        .asString()
        .startsWith("[resync-meter] INFO ")
        .endsWith("instrumenting client-java 27.0.0 (informer, workqueue, controller, requests), fabric8 7.6.1 (informer, requests), JOSDK 5.3.2 (reconciler)");
    assertThat(scrape.series().keySet()).as("faults resync-meter caught in itself").noneMatch(s -> s.startsWith("resync_meter_errors_total"));
    for (String component : List.of("clientjava-informer", "clientjava-workqueue", "clientjava-controller")) {
      assertThat(scrape.series()).containsEntry("resync_meter_instrumentation_active{component=\"" + component + "\"}", 1.0);
    }
    peer.assertItWorked();
    assertThat(scenario.closeInputAndWait(Duration.ofSeconds(30))).as("exit code\n%s", scenario.transcript()).isZero();
  }

  /** One peer agent's options and environment, and what it serves or sends, on loopback only. */
  static final class PeerSetup implements AutoCloseable {
    final Peer peer;
    final List<String> options = new ArrayList<>();
    final Map<String, String> environment = new HashMap<>();
    private final int metricsPort;
    private final RecordingServer server;

    PeerSetup(Peer peer, Path temp) throws IOException {
      this.peer = peer;
      Path jar = Path.of(System.getProperty("resyncmeter.peerAgentsDir", "target/peer-agents")).resolve(peer.jar).toAbsolutePath();
      if (!Files.isRegularFile(jar)) {
        throw new IllegalStateException(jar + " is missing: run `mvn verify` from the top folder, which copies it from Maven Central");
      }
      metricsPort = freePort();
      server = peer == Peer.ELASTIC_APM || peer == Peer.PYROSCOPE ? new RecordingServer() : null;
      switch (peer) {
        case OPENTELEMETRY, OPENTELEMETRY_2_10 -> {
          // Its defaults (executor, OkHttp and client-java instrumentation on), metrics to Prometheus.
          options.add("-javaagent:" + jar);
          environment.put("OTEL_TRACES_EXPORTER", "none");
          environment.put("OTEL_LOGS_EXPORTER", "none");
          environment.put("OTEL_METRICS_EXPORTER", "prometheus");
          environment.put("OTEL_EXPORTER_PROMETHEUS_HOST", "127.0.0.1");
          environment.put("OTEL_EXPORTER_PROMETHEUS_PORT", String.valueOf(metricsPort));
        }
        case JMX_EXPORTER -> {
          Path config = Files.writeString(temp.resolve("jmx-exporter.yaml"), "rules:\n  - pattern: \".*\"\n");
          options.add("-javaagent:" + jar + "=127.0.0.1:" + metricsPort + ":" + config);
        }
        case ELASTIC_APM -> {
          options.add("-javaagent:" + jar);
          environment.put("ELASTIC_APM_SERVER_URL", server.url());
          environment.put("ELASTIC_APM_SERVICE_NAME", "resync-meter-peer-test");
          environment.put("ELASTIC_APM_CENTRAL_CONFIG", "false");
          environment.put("ELASTIC_APM_METRICS_INTERVAL", "1s");
          environment.put("ELASTIC_APM_API_REQUEST_TIME", "1s");
        }
        case PYROSCOPE -> {
          options.add("-javaagent:" + jar);
          environment.put("PYROSCOPE_SERVER_ADDRESS", server.url());
          environment.put("PYROSCOPE_APPLICATION_NAME", "resync-meter-peer-test");
          environment.put("PYROSCOPE_UPLOAD_INTERVAL", "1s");
        }
      }
    }

    /** The peer's own output, while the host still runs: its metrics endpoint, or what it sent. */
    void assertItWorked() throws Exception {
      switch (peer) {
        case OPENTELEMETRY, OPENTELEMETRY_2_10 ->
            assertThat(Scrape.of("http://127.0.0.1:" + metricsPort + "/metrics").body())
                .as("OpenTelemetry's own metrics: the JVM's, and client-java's requests it traced")
                .contains("jvm_class_loaded_total")
                .contains("http_client_request_duration_seconds_count");
        case JMX_EXPORTER ->
            assertThat(Scrape.of("http://127.0.0.1:" + metricsPort + "/metrics").body())
                .as("the JMX exporter's own metrics")
                .contains("jvm_memory_used_bytes");
        case ELASTIC_APM -> server.await("POST /intake/v2/events");
        case PYROSCOPE -> server.await("POST /ingest");
      }
    }

    @Override
    public void close() {
      if (server != null) {
        server.close();
      }
    }

    private static int freePort() throws IOException {
      try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
        return socket.getLocalPort();
      }
    }
  }

  /** Stands for an APM or profiling server on loopback: answers every request and records its method and path. */
  static final class RecordingServer implements AutoCloseable {
    private final HttpServer server;
    private final List<String> requests = new CopyOnWriteArrayList<>();

    RecordingServer() throws IOException {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
      server.createContext(
          "/",
          exchange -> {
            try (InputStream body = exchange.getRequestBody()) {
              body.readAllBytes();
            }
            requests.add(exchange.getRequestMethod() + " " + exchange.getRequestURI());
            // Elastic's agent asks the server's version first.
            byte[] answer =
                (exchange.getRequestURI().getPath().equals("/") ? "{\"version\":\"8.15.0\"}" : "{}").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(exchange.getRequestURI().getPath().startsWith("/intake") ? 202 : 200, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
          });
      server.setExecutor(java.util.concurrent.Executors.newFixedThreadPool(4, r -> {
        Thread thread = new Thread(r, "recording-server");
        thread.setDaemon(true);
        return thread;
      }));
      server.start();
    }

    String url() {
      return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    void await(String requestPrefix) throws InterruptedException {
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (System.nanoTime() < deadline) {
        if (requests.stream().anyMatch(r -> r.startsWith(requestPrefix))) {
          return;
        }
        Thread.sleep(100);
      }
      throw new AssertionError("no request " + requestPrefix + " within 30 s; requests: " + requests);
    }

    @Override
    public void close() {
      server.stop(0);
    }
  }
}
