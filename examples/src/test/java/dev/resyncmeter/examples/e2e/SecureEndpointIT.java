package dev.resyncmeter.examples.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resyncmeter.collector.endpoint.TestCertificates;
import dev.resyncmeter.collector.endpoint.TestCertificates.KeyEncoding;
import dev.resyncmeter.report.Json;
import dev.resyncmeter.testkit.Net;
import dev.resyncmeter.testkit.Prometheus;
import dev.resyncmeter.testkit.Scrape;
import java.io.IOException;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's endpoint with TLS and basic authentication, end to end: the real agent jar in forked
 * JVMs, one per configuration, all started at once.
 *
 * <ul>
 *   <li>{@code secure}: the resync scenario's sample controllers, the endpoint on TLS with basic
 *       authentication, its certificate and key mounted as the kubelet mounts a TLS secret (links
 *       into a {@code ..data} link, which a rotation swaps with one rename). Debian's Prometheus
 *       scrapes it with the right settings, and with the same settings less the credentials, with a
 *       wrong password, and over plain HTTP.
 *   <li>{@code plain}: plain HTTP with basic authentication, on an idle host.
 *   <li>{@code wrongKey}: TLS asked for (by environment variables) with a key that is not the
 *       certificate's: the scenario runs to its end, and nothing is served.
 *   <li>{@code missingKey}: TLS asked for (by agent arguments) with a key file that does not exist,
 *       on an idle host: likewise.
 * </ul>
 *
 * Tests run in order: those that need only their own JVM first, while the scenario runs; then
 * Prometheus's counts; then the abuse, which adds refusals of its own. Every wait is bounded, and
 * everything listens on loopback only.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SecureEndpointIT {

  private static final Duration WAIT = Duration.ofSeconds(120);
  private static final String USER = "prometheus";
  private static final String PASSWORD = "s3cret-from-a-mounted-secret";
  private static final String LOOPBACK = "127.0.0.1";
  private static final String REFUSALS = "resync_meter_endpoint_refusals_total";
  private static final List<String> REASONS =
      List.of("no_credentials", "wrong_credentials", "tls_handshake", "bad_request", "idle_closed", "too_many_connections");
  /** The Prometheus jobs that must get nothing, and the refusal each of their scrapes is counted as. */
  private static final Map<String, String> REFUSED_JOBS =
      Map.of("no-credentials", "no_credentials", "wrong-password", "wrong_credentials", "plain-http", "tls_handshake");
  private static final int HELD = 60;
  private static final int SLOTS = 16;
  private static final ScheduledExecutorService BOUNDS =
      Executors.newSingleThreadScheduledExecutor(
          runnable -> {
            Thread thread = new Thread(runnable, "secure-endpoint-it-bound");
            thread.setDaemon(true);
            return thread;
          });

  @TempDir static Path dir;
  private static TestCertificates certificates;
  private static SSLContext client;
  private static Path secret;
  private static Path passwordFile;
  private static AgentProcess secure;
  private static AgentProcess plain;
  private static AgentProcess missingKey;
  private static AgentProcess wrongKey;
  private static int securePort;
  private static int plainPort;
  private static int missingKeyPort;
  private static int wrongKeyPort;
  private static Path missingKeyFile;
  private static CompletableFuture<Prometheus> prometheusStarted;
  private static Prometheus prometheus;

  @BeforeAll
  static void start() throws Exception {
    passwordFile = Files.writeString(dir.resolve("password"), PASSWORD + "\n");
    plainPort = Net.freePort();
    plain = AgentProcess.start(
        "host=127.0.0.1,port=" + plainPort + ",basic-auth-user=" + USER + ",basic-auth-password-file=" + passwordFile, Map.of(), "idle");
    certificates = TestCertificates.in(Files.createDirectories(dir.resolve("certificates")));
    client = certificates.clientContext(false);
    secret = Files.createDirectories(dir.resolve("secret"));
    mount(1, certificates.serverCertificate(), certificates.serverKey(KeyEncoding.TRADITIONAL));
    Files.createSymbolicLink(secret.resolve("tls.crt"), Path.of("..data", "tls.crt"));
    Files.createSymbolicLink(secret.resolve("tls.key"), Path.of("..data", "tls.key"));

    securePort = Net.freePort();
    secure = AgentProcess.start(
        String.join(
            ",",
            "host=127.0.0.1",
            "port=" + securePort,
            "tls-cert=" + secret.resolve("tls.crt"),
            "tls-key=" + secret.resolve("tls.key"),
            "basic-auth-user=" + USER,
            "basic-auth-password-file=" + passwordFile),
        Map.of(),
        ExactCounts.RESYNC_SCENARIO);
    missingKeyPort = Net.freePort();
    missingKeyFile = dir.resolve("no-such-secret").resolve("tls.key");
    missingKey = AgentProcess.start(
        "host=127.0.0.1,port=" + missingKeyPort + ",tls-cert=" + certificates.serverCertificate() + ",tls-key=" + missingKeyFile, Map.of(), "idle");
    wrongKeyPort = Net.freePort();
    wrongKey = AgentProcess.start(
        "host=127.0.0.1,port=" + wrongKeyPort,
        Map.of("RESYNC_METER_TLS_CERT", certificates.serverCertificate().toString(), "RESYNC_METER_TLS_KEY", certificates.rotatedKey().toString()),
        ExactCounts.RESYNC_SCENARIO);

    // Prometheus once the endpoint answers (a scrape waiting in the listen backlog while the agent
    // starts would time out, and be counted as something else than what its job is about), and
    // while the scenario runs: the tests before the one that needs it go on meanwhile.
    Path config = prometheusConfig();
    prometheusStarted =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                secure.awaitStderr(line -> line.contains("serving https://127.0.0.1:" + securePort + "/metrics"), WAIT);
                awaitOk(securePort);
                return Prometheus.start(config);
              } catch (Exception e) {
                throw new CompletionException(e);
              }
            });
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      closePrometheus();
    } finally {
      for (AgentProcess process : new AgentProcess[] {secure, plain, missingKey, wrongKey}) {
        AgentProcess.end(process);
      }
    }
  }

  @Test
  @Order(1)
  void sixtyHeldConnectionsIdleOrSlowDoNotKeepAScrapeOverPlainHttpOut() throws Exception {
    plain.awaitStderr(line -> line.contains("serving http://127.0.0.1:" + plainPort + "/metrics"), WAIT);
    String scrape = authorized("GET /metrics HTTP/1.1\r\nHost: x\r\n");
    Answer first = plainText(plainPort, scrape);
    assertThat(first.status()).as("plain HTTP with basic authentication").isEqualTo(200);
    assertThat(plainText(plainPort, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n").status()).as("without credentials").isEqualTo(401);
    double idleClosedBefore = refusals(first).get("idle_closed");
    List<Socket> held = new ArrayList<>();
    try {
      for (int i = 0; i < HELD; i++) {
        Socket socket = new Socket(LOOPBACK, plainPort);
        if (i % 2 == 1) {
          socket.getOutputStream().write("GET /metrics HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.ISO_8859_1));
          socket.getOutputStream().flush();
        }
        held.add(socket);
      }
      long start = System.nanoTime();
      Answer answer = plainText(plainPort, scrape);
      long took = System.nanoTime() - start;
      assertThat(answer.status()).isEqualTo(200);
      assertThat(took).as("answered within 5 s").isLessThan(TimeUnit.SECONDS.toNanos(5));
      assertThat(refusals(answer).get("idle_closed") - idleClosedBefore).isGreaterThanOrEqualTo(HELD + 1 - SLOTS);
    } finally {
      for (Socket socket : held) {
        socket.close();
      }
    }
    assertThat(plainText(plainPort, scrape).status()).isEqualTo(200);
  }

  @Test
  @Order(2)
  void aMissingKeyFileServesNothingAndTheHostRunsOn() throws Exception {
    missingKey.awaitStdout("host ran"::equals, WAIT);
    assertFailsClosed(missingKey, missingKeyPort, "tls-key " + missingKeyFile + " does not exist");
    assertThat(missingKey.closeInputAndWait(WAIT)).as(missingKey.transcript()).isZero();
  }

  @Test
  @Order(3)
  void aCertificateThatIsNotItsKeysServesNothingAndTheControllerRunsOn() throws Exception {
    wrongKey.awaitStdout("SCENARIO DONE"::equals, WAIT);
    String why = "the certificate in tls-cert " + certificates.serverCertificate() + " (CN=localhost,O=server) is not for the key in tls-key " + certificates.rotatedKey();
    assertFailsClosed(wrongKey, wrongKeyPort, why);
    assertThat(wrongKey.truth()).as("the application's own counts").hasSizeGreaterThan(20);
    assertThat(wrongKey.closeInputAndWait(WAIT)).as(wrongKey.transcript()).isZero();
    assertThat(wrongKey.stdout()).as("each sample controller reconciled")
        .filteredOn(line -> line.startsWith("reconciles "))
        .hasSize(2)
        .allMatch(line -> Long.parseLong(line.substring(line.lastIndexOf(' ') + 1)) > 0);
    assertFailsClosed(wrongKey, wrongKeyPort, why); // to its end: no other WARN
  }

  @Test
  @Order(4)
  void prometheusGetsTheApplicationsCountsOverTlsAndTheOtherJobsGetNothingButCountedRefusals() throws Exception {
    try {
      prometheus = prometheusStarted.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      // Debian's prometheus missing (skipped here, a failure in CI: Tools), or it did not start
      if (e.getCause() instanceof RuntimeException unchecked) {
        throw unchecked;
      }
      if (e.getCause() instanceof Error error) {
        throw error;
      }
      throw new AssertionError(e.getCause());
    }
    secure.awaitStdout("SCENARIO DONE"::equals, WAIT);
    Map<String, Long> truth = secure.truth();
    awaitScrapedAfter(System.currentTimeMillis(), List.of("secure", "no-credentials", "wrong-password", "plain-http"));

    assertThat(byJob("up")).as(prometheus.log()).containsExactlyInAnyOrderEntriesOf(
        Map.of("secure", 1.0, "no-credentials", 0.0, "wrong-password", 0.0, "plain-http", 0.0));
    // Every count the application made, through Prometheus, exactly; and no other.
    ExactCounts.assertResyncScenario(truth, new Scrape(200, "", "", seriesOf("secure", "informer_.+")));
    assertThat(byJob("max_over_time(up[1h])")).as("never up").containsEntry("no-credentials", 0.0).containsEntry("wrong-password", 0.0).containsEntry("plain-http", 0.0);
    for (String job : REFUSED_JOBS.keySet()) {
      assertThat(seriesOf(job, ".+").keySet()).as(job + ": nothing but Prometheus's own series").allMatch(s -> s.startsWith("up") || s.startsWith("scrape_"));
    }
    Map<String, String> errors = lastErrors();
    assertThat(errors.get("no-credentials")).contains("401");
    assertThat(errors.get("wrong-password")).contains("401");
    assertThat(errors.get("plain-http")).isNotEmpty();

    // The agent counted each job's scrapes as its reason: as many as Prometheus made before the
    // counter was read, and no more than it made by a scrape begun after the read.
    Map<String, Long> before = countByJob("count_over_time(up[1h])");
    Map<String, Double> refusals = refusals(tlsScrape(securePort));
    long read = System.currentTimeMillis();
    awaitScrapedAfter(read, List.copyOf(REFUSED_JOBS.keySet()));
    Map<String, Long> after = countByJob("count_over_time(up[1h])");
    REFUSED_JOBS.forEach(
        (job, reason) ->
            assertThat(refusals.get(reason).longValue()).as(job + " scrapes refused as " + reason).isBetween(before.get(job), after.get(job)));
    assertThat(refusals).as("nothing else was refused").containsEntry("bad_request", 0.0).containsEntry("idle_closed", 0.0).containsEntry("too_many_connections", 0.0);
  }

  @Test
  @Order(5)
  void aCertificateRotatedOnDiskIsTheOneTheNextConnectionGets() throws Exception {
    assertThat(tlsScrape(securePort).subject()).contains("O=server");
    // As the kubelet updates a mounted secret: the new files in a new folder, then one rename of the link.
    mount(2, certificates.rotatedCertificate(), certificates.rotatedKey());
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    Answer answer = tlsScrape(securePort);
    while (!answer.subject().contains("O=rotated") && System.nanoTime() < deadline) {
      Thread.sleep(200);
      answer = tlsScrape(securePort);
    }
    assertThat(answer.subject()).as("the certificate served within 10 s of the rotation").contains("O=rotated");
    assertThat(answer.status()).isEqualTo(200);
    assertThat(tlsScrape(securePort).subject()).as("and from then on").contains("O=rotated");
    assertThat(secure.agentLines()).as("a rotation is no fault").noneMatch(line -> line.contains(" WARN "));
    try {
      if (prometheus != null) {
        // Prometheus, trusting the CA, takes the new certificate on its next scrape.
        awaitScrapedAfter(System.currentTimeMillis(), List.of("secure"));
        assertThat(byJob("up")).containsEntry("secure", 1.0);
      }
    } finally {
      closePrometheus();
    }
  }

  @Test
  @Order(6)
  void badAndStalledRequestsOverTlsAreRefusedAndEachIsFollowedByAGoodScrape() throws Exception {
    closePrometheus(); // its refused jobs would add refusals of their own from here on
    Map<String, Double> before = settledRefusals();
    try (Socket silent = new Socket(LOOPBACK, securePort);
        SSLSocket half = tlsSocket(securePort)) {
      // Held open throughout: one that never starts its handshake, one that never ends its head.
      half.getOutputStream().write("GET /metrics HTTP/1.1\r\nHost: x\r\nAcc".getBytes(StandardCharsets.ISO_8859_1));
      half.getOutputStream().flush();

      assertThat(tls("\u0016\u0003\u0001garbage\u00ff\r\n\r\n", true).status()).as("garbage").isEqualTo(400);
      assertGoodScrape();
      assertThat(tls(authorized("GET /metrics HTTP/1.1\r\nX-Big: " + "a".repeat(1024 * 1024) + "\r\n"), true).status()).as("a mebibyte of header").isEqualTo(431);
      assertGoodScrape();
      assertThat(tls("GET /" + "m".repeat(100 * 1024) + " HTTP/1.1\r\n\r\n", true).status()).as("a 100 KiB request line").isEqualTo(414);
      assertGoodScrape();
      assertThat(tls(authorized("POST /metrics HTTP/1.1\r\nContent-Length: 1000000000000\r\n"), true).status()).as("a huge body announced").isEqualTo(405);
      assertGoodScrape();
      assertThat(tls("POST /metrics HTTP/1.1\r\nContent-Length: 1000000000000\r\n\r\n", true).status()).as("the same without credentials").isEqualTo(401);
      assertGoodScrape();
      assertThat(plainText(securePort, authorized("GET /metrics HTTP/1.1\r\nHost: x\r\n")).status()).as("plain HTTP on the TLS port: no HTTP answer").isZero();
      assertGoodScrape();
      assertThat(plainText(securePort, "\u0016\u0003\u0001\u0000\u0005garbage after a record header").status()).as("a garbled handshake").isZero();
      assertGoodScrape();
      // A flood: a hundred connections that start a handshake and drop it at once.
      for (int i = 0; i < 100; i++) {
        try (Socket dropped = new Socket(LOOPBACK, securePort)) {
          dropped.getOutputStream().write(new byte[] {0x16, 0x03, 0x01, 0x02, 0x00, 0x01});
        }
      }
      assertGoodScrape();
    }
    Map<String, Double> after = refusals(tlsScrape(securePort));
    assertThat(after.get("bad_request") - before.get("bad_request")).as("400, 431, 414 (and a stalled head, if it timed out)").isBetween(3.0, 4.0);
    assertThat(after.get("no_credentials") - before.get("no_credentials")).as("the POST without credentials").isEqualTo(1.0);
    assertThat(after.get("tls_handshake") - before.get("tls_handshake")).as("plain HTTP, a garbled handshake, the flood").isGreaterThanOrEqualTo(2.0);
    assertThat(after.get("wrong_credentials")).isEqualTo(before.get("wrong_credentials"));
  }

  @Test
  @Order(7)
  void sixtyHeldConnectionsIdleSlowOrStuckInTheirHandshakeDoNotKeepAScrapeOverTlsOut() throws Exception {
    double idleClosedBefore = refusals(tlsScrape(securePort)).get("idle_closed");
    List<Socket> held = new ArrayList<>();
    try {
      for (int i = 0; i < HELD; i++) {
        switch (i % 3) {
          case 0 -> held.add(new Socket(LOOPBACK, securePort)); // idle: not even a handshake
          case 1 -> {
            // a slowloris: the handshake done, then a head that never ends
            SSLSocket slow = tlsSocket(securePort);
            slow.getOutputStream().write("GET /metrics HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.ISO_8859_1));
            slow.getOutputStream().flush();
            held.add(slow);
          }
          default -> {
            // the first bytes of a ClientHello, and then nothing
            Socket stuck = new Socket(LOOPBACK, securePort);
            stuck.getOutputStream().write(new byte[] {0x16, 0x03, 0x01, 0x02, 0x00, 0x01});
            stuck.getOutputStream().flush();
            held.add(stuck);
          }
        }
      }
      long start = System.nanoTime();
      Answer scrape = tlsScrape(securePort);
      long took = System.nanoTime() - start;
      assertThat(scrape.status()).isEqualTo(200);
      assertThat(took).as("answered within 5 s").isLessThan(TimeUnit.SECONDS.toNanos(5));
      assertThat(refusals(scrape).get("idle_closed") - idleClosedBefore).as("those beyond the slots were closed to make room").isGreaterThanOrEqualTo(HELD + 1 - SLOTS);
    } finally {
      for (Socket socket : held) {
        socket.close();
      }
    }
    assertGoodScrape();
  }

  /**
   * stderr holds one WARN line, the agent's, naming the file and why; the start line says there is no
   * endpoint; nothing listens on the port.
   */
  private static void assertFailsClosed(AgentProcess host, int port, String why) {
    String expected = "[resync-meter] WARN cannot serve metrics on 127.0.0.1:" + port + ": " + why + "; counting goes on without an endpoint";
    assertThat(host.stderr().stream().filter(line -> line.contains("WARN")).toList()).as(host.transcript()).containsExactly(expected);
    assertThat(host.agentLines()).anyMatch(line -> line.contains("serving no endpoint"));
    if (host.isAlive()) {
      assertThatThrownBy(() -> new Socket(LOOPBACK, port).close()).as("nothing listens on " + port).isInstanceOf(ConnectException.class);
    }
  }

  // --- the secret, Prometheus

  /**
   * Puts {@code certificate} and {@code key} in {@code secret/..vN/} and points {@code secret/..data}
   * at it with one rename: the two files change together, as the kubelet changes a mounted secret.
   */
  private static void mount(int version, Path certificate, Path key) throws IOException {
    Path data = Files.createDirectories(secret.resolve("..v" + version));
    Files.copy(certificate, data.resolve("tls.crt"));
    Files.copy(key, data.resolve("tls.key"));
    Path link = Files.createSymbolicLink(secret.resolve("..data_tmp"), data.getFileName());
    Files.move(link, secret.resolve("..data"), StandardCopyOption.ATOMIC_MOVE);
  }

  /** Ends Prometheus, the one started in the background too if no test took it (waiting for its start, bounded). */
  private static void closePrometheus() throws Exception {
    Prometheus started = prometheus;
    if (started == null && prometheusStarted != null) {
      started = prometheusStarted.handle((running, failed) -> running).get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }
    if (started != null) {
      started.close();
    }
    prometheus = null;
  }

  /** Four jobs scrape the secure endpoint every second, the same but for what each gets wrong. */
  private static Path prometheusConfig() throws IOException {
    Path wrongPassword = Files.writeString(dir.resolve("wrong-password"), "not-" + PASSWORD + "\n");
    List<String> lines = new ArrayList<>(List.of("global:", "  scrape_interval: 1s", "  scrape_timeout: 1s", "scrape_configs:"));
    lines.addAll(job("secure", "https", passwordFile));
    lines.addAll(job("no-credentials", "https", null));
    lines.addAll(job("wrong-password", "https", wrongPassword));
    lines.addAll(job("plain-http", "http", passwordFile));
    Path prometheusDir = Files.createDirectories(dir.resolve("prometheus"));
    return Files.write(prometheusDir.resolve("prometheus.yml"), lines);
  }

  private static List<String> job(String name, String scheme, Path password) {
    List<String> lines = new ArrayList<>(List.of(
        "  - job_name: " + name,
        "    scheme: " + scheme,
        "    tls_config:",
        "      ca_file: '" + certificates.caCertificate() + "'"));
    if (password != null) {
      lines.addAll(List.of("    basic_auth:", "      username: " + USER, "      password_file: '" + password + "'"));
    }
    lines.addAll(List.of("    static_configs:", "      - targets: ['127.0.0.1:" + securePort + "']"));
    return lines;
  }

  /**
   * Waits, at most 30 s, until Prometheus holds a scrape of each of {@code jobs} begun after
   * {@code millis}, the last one of job {@code secure} a success.
   */
  private static void awaitScrapedAfter(long millis, List<String> jobs) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    Map<String, Double> last = Map.of();
    Map<String, Double> up = Map.of();
    while (System.nanoTime() < deadline) {
      last = byJob("timestamp(up)");
      up = byJob("up");
      Map<String, Double> seen = last;
      if (jobs.stream().allMatch(job -> seen.getOrDefault(job, 0.0) * 1000 > millis) && (!jobs.contains("secure") || Double.valueOf(1.0).equals(up.get("secure")))) {
        return;
      }
      Thread.sleep(200);
    }
    throw new AssertionError("Prometheus did not scrape " + jobs + " within 30 s: " + last + ", up " + up + ", " + lastErrors() + "\n" + prometheus.log());
  }

  /** An instant query's value by job. */
  private static Map<String, Double> byJob(String promql) throws Exception {
    Map<String, Double> values = new TreeMap<>();
    for (Map<?, ?> result : result(promql)) {
      values.put((String) ((Map<?, ?>) result.get("metric")).get("job"), Double.parseDouble((String) ((List<?>) result.get("value")).get(1)));
    }
    return values;
  }

  private static Map<String, Long> countByJob(String promql) throws Exception {
    Map<String, Long> counts = new TreeMap<>();
    byJob(promql).forEach((job, value) -> counts.put(job, value.longValue()));
    return counts;
  }

  /** The series of {@code job} whose names match {@code nameRegex}, keyed as the agent prints them (without job and instance). */
  private static Map<String, Double> seriesOf(String job, String nameRegex) throws Exception {
    Map<String, Double> series = new TreeMap<>();
    for (Map<?, ?> result : result("{job=\"" + job + "\",__name__=~\"" + nameRegex + "\"}")) {
      Map<String, String> labels = new TreeMap<>();
      ((Map<?, ?>) result.get("metric")).forEach((name, value) -> labels.put((String) name, (String) value));
      String name = labels.remove("__name__");
      labels.remove("job");
      labels.remove("instance");
      StringBuilder key = new StringBuilder(name);
      if (!labels.isEmpty()) {
        key.append('{');
        labels.forEach((label, value) -> key.append(label).append("=\"").append(value).append("\","));
        key.setCharAt(key.length() - 1, '}');
      }
      series.put(key.toString(), Double.parseDouble((String) ((List<?>) result.get("value")).get(1)));
    }
    return series;
  }

  private static List<Map<?, ?>> result(String promql) throws Exception {
    Map<?, ?> answer = (Map<?, ?>) Json.parse(prometheus.query(promql));
    assertThat(answer.get("status")).as(promql + ": " + answer).isEqualTo("success");
    List<Map<?, ?>> results = new ArrayList<>();
    for (Object result : (List<?>) ((Map<?, ?>) answer.get("data")).get("result")) {
      results.add((Map<?, ?>) result);
    }
    return results;
  }

  /** Each job's last scrape error, as Prometheus's targets page says it ("" for none). */
  private static Map<String, String> lastErrors() throws Exception {
    Map<String, String> errors = new TreeMap<>();
    Map<?, ?> answer = (Map<?, ?>) Json.parse(prometheus.get("/api/v1/targets"));
    for (Object target : (List<?>) ((Map<?, ?>) answer.get("data")).get("activeTargets")) {
      Map<?, ?> fields = (Map<?, ?>) target;
      errors.put((String) fields.get("scrapePool"), (String) fields.get("lastError"));
    }
    return errors;
  }

  // --- clients

  /** An answer: the certificate the server presented (TLS only), the status (0: no HTTP answer) and the body. */
  private record Answer(String subject, int status, String body) {}

  private static void assertGoodScrape() throws IOException {
    Answer answer = tlsScrape(securePort);
    assertThat(answer.status()).isEqualTo(200);
    assertThat(answer.body()).contains("resync_meter_info{");
  }

  /** Scrapes until it gets a 200, for at most a minute: the endpoint answers once the agent's collector is built. */
  private static void awaitOk(int port) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    Exception last = null;
    while (System.nanoTime() < deadline) {
      try {
        if (tlsScrape(port).status() == 200) {
          return;
        }
      } catch (IOException e) {
        last = e;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("no 200 from port " + port + " within 60 s: " + last + "\n" + secure.transcript());
  }

  /** A GET of /metrics over TLS with the right credentials. */
  private static Answer tlsScrape(int port) throws IOException {
    return tls(port, authorized("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n"), false);
  }

  private static Answer tls(String request, boolean endOutput) throws IOException {
    return tls(securePort, request, endOutput);
  }

  /** Sends {@code request} over a TLS connection that checks the server's certificate and its address. */
  private static Answer tls(int port, String request, boolean endOutput) throws IOException {
    try (SSLSocket socket = tlsSocket(port)) {
      String subject = ((X509Certificate) socket.getSession().getPeerCertificates()[0]).getSubjectX500Principal().getName();
      Answer answer = exchange(socket, request, endOutput);
      return new Answer(subject, answer.status(), answer.body());
    }
  }

  /** Sends {@code request} as it is over plain TCP. */
  private static Answer plainText(int port, String request) throws IOException {
    try (Socket socket = new Socket(LOOPBACK, port)) {
      return exchange(socket, request, true);
    }
  }

  /** A TLS connection, its handshake done, trusting the test CA and checking that the certificate is for 127.0.0.1. */
  private static SSLSocket tlsSocket(int port) throws IOException {
    SSLSocket socket = (SSLSocket) client.getSocketFactory().createSocket();
    try {
      socket.connect(new InetSocketAddress(InetAddress.getByName(LOOPBACK), port), 5_000);
      socket.setSoTimeout(30_000);
      SSLParameters parameters = socket.getSSLParameters();
      parameters.setEndpointIdentificationAlgorithm("HTTPS");
      socket.setSSLParameters(parameters);
      socket.startHandshake();
      return socket;
    } catch (IOException | RuntimeException e) {
      socket.close();
      throw e;
    }
  }

  /**
   * Writes {@code request}, ends our side when {@code endOutput} (the server may be draining what we
   * send), and reads to the end. Every read is bounded by the socket's timeout, the whole exchange by
   * closing the socket after a minute. A connection the server closed or reset without answering is
   * status 0.
   */
  private static Answer exchange(Socket socket, String request, boolean endOutput) throws IOException {
    socket.setSoTimeout(30_000);
    ScheduledFuture<?> bound = BOUNDS.schedule(() -> closeQuietly(socket), 60, TimeUnit.SECONDS);
    byte[] received;
    try {
      OutputStream out = socket.getOutputStream();
      try {
        out.write(request.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        if (endOutput) {
          socket.shutdownOutput();
        }
      } catch (IOException closedWhileWriting) {
        // the server answered and stopped reading: its answer may still be there to read
      }
      try {
        received = socket.getInputStream().readAllBytes();
      } catch (IOException reset) {
        return new Answer("", 0, "");
      }
    } finally {
      bound.cancel(false);
    }
    String text = new String(received, StandardCharsets.UTF_8);
    if (!text.startsWith("HTTP/1.1 ")) {
      return new Answer("", 0, "");
    }
    int bodyStart = text.indexOf("\r\n\r\n");
    return new Answer("", Integer.parseInt(text.substring(9, 12)), bodyStart < 0 ? "" : text.substring(bodyStart + 4));
  }

  /** {@code head} (request line and headers, each ended) with the right credentials and the blank line. */
  private static String authorized(String head) {
    return head + "Authorization: Basic " + Base64.getEncoder().encodeToString((USER + ":" + PASSWORD).getBytes(StandardCharsets.UTF_8)) + "\r\n\r\n";
  }

  /**
   * The refusals once they stop changing (two reads 300 ms apart agree, within 10 s): a scrape that
   * Prometheus sent just before it ended may still be counted after it is gone.
   */
  private static Map<String, Double> settledRefusals() throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    Map<String, Double> last = refusals(tlsScrape(securePort));
    while (System.nanoTime() < deadline) {
      Thread.sleep(300);
      Map<String, Double> now = refusals(tlsScrape(securePort));
      if (now.equals(last)) {
        return now;
      }
      last = now;
    }
    throw new AssertionError("the refusals kept changing for 10 s: " + last);
  }

  /** The refusals by reason in a 200 answer's body, every reason present. */
  private static Map<String, Double> refusals(Answer answer) {
    assertThat(answer.status()).isEqualTo(200);
    Map<String, Double> series = Scrape.parse(answer.body());
    Map<String, Double> byReason = new LinkedHashMap<>();
    for (String reason : REASONS) {
      String key = REFUSALS + "{reason=\"" + reason + "\"}";
      assertThat(series).as("exported from the start").containsKey(key);
      byReason.put(reason, series.get(key));
    }
    return byReason;
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException ignored) {
      // closed already
    }
  }
}
