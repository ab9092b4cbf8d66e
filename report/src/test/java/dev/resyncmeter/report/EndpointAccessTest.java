package dev.resyncmeter.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resyncmeter.collector.MetricsServer;
import dev.resyncmeter.collector.ResyncMetrics;
import dev.resyncmeter.collector.endpoint.EndpointSecurity;
import dev.resyncmeter.collector.endpoint.TestCertificates;
import dev.resyncmeter.collector.endpoint.TestCertificates.KeyEncoding;
import dev.resyncmeter.report.ReportCommandTest.Run;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report reads a real agent endpoint ({@link MetricsServer}) with TLS, mutual TLS and basic auth
 * as the agent serves them: with the CA, the client certificate and the credentials it gets the
 * report, through both scrapes of a window; without them, or with the wrong ones, one line that says
 * what is missing or refused and what to give, exit 1; a password on the command line is refused
 * before anything is read.
 */
class EndpointAccessTest {

  private static final String USER = "scraper";
  private static final String PASSWORD = "s3cret from a secret";

  @TempDir static Path shared;
  private static TestCertificates certificates;
  private static Path passwordFile;

  @TempDir Path dir;
  private final List<MetricsServer> servers = new ArrayList<>();

  @BeforeAll
  static void makeCertificates() throws IOException {
    certificates = TestCertificates.in(shared);
    passwordFile = Files.writeString(shared.resolve("password"), PASSWORD + "\n");
  }

  @AfterEach
  void stop() {
    servers.forEach(MetricsServer::close);
  }

  // ---- reading it ---------------------------------------------------------------------------------

  @Test
  void aTlsEndpointWithBasicAuthIsReadWithItsCaAndTheCredentialsForBothScrapesOfTheWindow() throws Exception {
    ResyncMetrics metrics = metrics();
    String url = url(serve(metrics, security(false, true)), "https");
    Run run = run("--url", url, "--window", "1ms", "--ca-file", ca(), "--user", USER, "--password-file", passwordFile.toString(), "--format", "json");
    assertThat(run.err()).isEmpty();
    assertThat(run.exit()).isZero();
    assertThat(run.out()).contains("\"source\": \"" + url + "\"", "\"window_seconds\": ");
    assertThat(refusals(metrics)).as("neither scrape was refused").isEmpty();
  }

  @Test
  void aPasswordFileWithoutALineEndAndOneWithCrLfHoldTheSamePassword() throws Exception {
    String url = url(serve(metrics(), security(false, true)), "https");
    for (String content : List.of(PASSWORD, PASSWORD + "\r\n")) {
      Path file = Files.writeString(dir.resolve("pw"), content);
      Run run = run("--url", url, "--window", "1ms", "--ca-file", ca(), "--user", USER, "--password-file", file.toString());
      assertThat(run.exit()).as(run.err()).isZero();
    }
  }

  @Test
  void basicAuthOverPlainHttpAndTlsWithoutBasicAuthWorkToo() throws Exception {
    String plain = url(serve(metrics(), EndpointSecurity.load(null, null, null, USER, passwordFile, w -> {})), "http");
    assertThat(run("--url", plain, "--window", "1ms", "--user", USER, "--password-file", passwordFile.toString()).exit()).isZero();
    String tls = url(serve(metrics(), security(false, false)), "https");
    assertThat(run("--url", tls, "--window", "1ms", "--ca-file", ca()).exit()).isZero();
  }

  @Test
  void mutualTlsPresentsTheClientCertificate() throws Exception {
    String url = url(serve(metrics(), security(true, true)), "https");
    Run run = run(
        "--url", url, "--window", "1ms", "--ca-file", ca(), "--client-cert", certificates.clientCertificate().toString(), "--client-key",
        certificates.clientKey().toString(), "--user", USER, "--password-file", passwordFile.toString());
    assertThat(run.err()).isEmpty();
    assertThat(run.exit()).isZero();
  }

  @Test
  void aClientKeyInPkcs1AsCertManagerWritesItServesAsWellAsPkcs8() throws Exception {
    String url = url(serve(metrics(), security(true, false)), "https");
    Path pkcs1 = certificates.clientKey(KeyEncoding.TRADITIONAL);
    assertThat(Files.readString(pkcs1)).startsWith("-----BEGIN RSA PRIVATE KEY-----");
    Run run = run("--url", url, "--window", "1ms", "--ca-file", ca(), "--client-cert", certificates.clientCertificate().toString(), "--client-key", pkcs1.toString());
    assertThat(run.err()).isEmpty();
    assertThat(run.exit()).isZero();
  }

  // ---- what is missing or refused -----------------------------------------------------------------

  @Test
  void anEndpointThatAsksForCredentialsSaysWhetherTheyWereGivenOrRefused() throws Exception {
    String url = url(serve(metrics(), security(false, true)), "https");
    assertError(run("--url", url, "--ca-file", ca()),
        url + " answered HTTP 401 Unauthorized: the endpoint asks for credentials (basic auth) and --user/--password-file were not given");
    Path wrong = Files.writeString(dir.resolve("wrong"), "not it\n");
    assertError(run("--url", url, "--ca-file", ca(), "--user", USER, "--password-file", wrong.toString()),
        url + " answered HTTP 401 Unauthorized: the endpoint asks for credentials (basic auth) and the credentials were refused (--user " + USER + ")");
    Path token = Files.writeString(dir.resolve("token"), "abc\n");
    assertError(run("--url", url, "--ca-file", ca(), "--bearer-token-file", token.toString()),
        url + " answered HTTP 401 Unauthorized: the endpoint asks for credentials (basic auth) and the credentials were refused"
            + " (--bearer-token-file; it asks for basic auth: --user/--password-file)");
  }

  @Test
  void aCertificateTheReportDoesNotTrustIsSaidWithWhatToGive() throws Exception {
    String url = url(serve(metrics(), security(false, false)), "https");
    assertError(run("--url", url), "cannot read " + url + " over TLS: its certificate is not signed by a CA the JDK trusts (give its CA with --ca-file PEM)");
    String notTheCa = certificates.clientCertificate().toString();
    assertError(run("--url", url, "--ca-file", notTheCa), "cannot read " + url + " over TLS: its certificate is not signed by a CA in --ca-file " + notTheCa);
  }

  @Test
  void theWrongSchemeIsSaidWithTheOtherOne() throws Exception {
    int tlsPort = serve(metrics(), security(false, false)).port();
    String http = "http://127.0.0.1:" + tlsPort + "/metrics";
    Run toTls = run("--url", http);
    assertOneLine(toTls, "cannot read " + http + ": ");
    assertThat(toTls.err()).endsWith("(is it served over TLS? then give https://127.0.0.1:" + tlsPort + "/metrics)\n");

    // the agent's plain endpoint answers a TLS handshake at once, with plain HTTP
    int plainPort = serve(metrics(), EndpointSecurity.NONE).port();
    String https = "https://127.0.0.1:" + plainPort + "/metrics";
    assertError(run("--url", https, "--ca-file", ca()),
        "cannot read " + https + " over TLS: it does not speak TLS (is it plain HTTP? then give http://127.0.0.1:" + plainPort + "/metrics)");
    // a plain server that waits for a request line the TLS handshake never brings: no answer within the
    // timeout (here 1 s instead of the command's 10), then a look says it is plain HTTP
    try (java.net.ServerSocket waiting = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      Thread answering = new Thread(() -> {
        for (int i = 0; i < 2; i++) {
          try (java.net.Socket socket = waiting.accept()) {
            socket.setSoTimeout(3_000);
            byte[] head = new byte[5];
            if (socket.getInputStream().readNBytes(head, 0, 5) == 5 && head[0] == 'H') {
              socket.getOutputStream().write("HTTP/1.0 200 OK\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            } else {
              socket.getInputStream().readAllBytes(); // the handshake: no answer until the client gives up
            }
          } catch (IOException e) {
            // the test fails on its own
          }
        }
      });
      answering.setDaemon(true);
      answering.start();
      String slowHttps = "https://127.0.0.1:" + waiting.getLocalPort() + "/metrics";
      AccessOptions options = new AccessOptions();
      options.caFile = certificates.caCertificate();
      assertThatThrownBy(() -> ReportCommand.fetch(slowHttps, 1, HttpAccess.load(options)))
          .isInstanceOf(ReportException.class)
          .hasMessage("cannot read " + slowHttps + ": no answer within 1 s (it answers plain HTTP on that port: give http://127.0.0.1:" + waiting.getLocalPort() + "/metrics)");
      answering.join(5_000);
    }
  }

  /**
   * TLS 1.3 checks a client certificate after the client has finished its side of the handshake: the
   * refusal comes as the server's alert or as the connection closed under the request, whichever the
   * client sees first. Either way the line says what to give.
   */
  @Test
  void anEndpointThatAsksForAClientCertificateSaysSo() throws Exception {
    String url = url(serve(metrics(), security(true, false)), "https");
    for (int i = 0; i < 5; i++) {
      assertThat(run("--url", url, "--ca-file", ca()).err()).matches(
          "resync-meter report: cannot read \\Q" + url + "\\E( over TLS: it asks for a client certificate"
              + "|: [a-z ]+ after the TLS handshake: the server may ask for a client certificate) \\(give --client-cert PEM and --client-key PEM\\)\n");
      // a certificate the endpoint's client CA did not sign: the server's own, which is no client certificate either
      String server = certificates.serverCertificate().toString();
      Run refused = run("--url", url, "--ca-file", ca(), "--client-cert", server, "--client-key", certificates.serverKey(KeyEncoding.PKCS8).toString());
      assertThat(refused.exit()).isEqualTo(1);
      assertThat(refused.err()).matches(
          "resync-meter report: cannot read \\Q" + url + "\\E( over TLS: it refused|: [a-z ]+ after the TLS handshake: the server may have refused)"
              + " the client certificate in --client-cert \\Q" + server + "\\E \\(is it signed by a CA the server trusts\\?\\)\n");
    }
  }

  @Test
  void aRedirectIsNotFollowedSoTheCredentialsGoOnlyWhereTheyWereMeantFor() throws Exception {
    List<String> elsewhere = new java.util.concurrent.CopyOnWriteArrayList<>();
    com.sun.net.httpserver.HttpServer other = com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
    other.createContext("/", exchange -> {
      elsewhere.add(String.valueOf(exchange.getRequestHeaders().getFirst("Authorization")));
      exchange.sendResponseHeaders(404, -1);
      exchange.close();
    });
    com.sun.net.httpserver.HttpServer redirecting = com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
    String target = "http://127.0.0.1:" + other.getAddress().getPort() + "/metrics";
    redirecting.createContext("/", exchange -> {
      exchange.getResponseHeaders().add("Location", target);
      exchange.sendResponseHeaders(302, -1);
      exchange.close();
    });
    other.start();
    redirecting.start();
    try {
      String url = "http://127.0.0.1:" + redirecting.getAddress().getPort() + "/metrics";
      assertError(run("--url", url, "--user", USER, "--password-file", passwordFile.toString()),
          url + " answered HTTP 302 Temporary Redirect, a redirect to " + target + ": the report follows none (credentials go only to the URL given); give the URL it redirects to");
      assertThat(elsewhere).isEmpty();
    } finally {
      redirecting.stop(0);
      other.stop(0);
    }
  }

  @Test
  void filesThatCannotBeUsedAreNamedAndNothingIsScraped() throws Exception {
    ResyncMetrics metrics = metrics();
    String url = url(serve(metrics, security(false, true)), "https");
    Path missing = dir.resolve("missing");
    assertError(run("--url", url, "--ca-file", ca(), "--user", USER, "--password-file", missing.toString()), "cannot read --password-file " + missing + ": no such file");
    Path empty = Files.writeString(dir.resolve("empty"), "\n");
    assertError(run("--url", url, "--ca-file", ca(), "--user", USER, "--password-file", empty.toString()), "--password-file " + empty + " is empty");
    assertError(run("--url", url, "--ca-file", missing.toString()), "cannot read --ca-file " + missing + ": no such file");
    String cert = certificates.clientCertificate().toString();
    Path encrypted = Files.writeString(dir.resolve("encrypted.key"), "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n");
    assertError(run("--url", url, "--client-cert", cert, "--client-key", encrypted.toString()),
        "--client-key " + encrypted + " holds an encrypted key: give it unencrypted, as a Kubernetes TLS secret holds it");
    String otherKey = certificates.serverKey(KeyEncoding.PKCS8).toString();
    assertError(run("--url", url, "--client-cert", cert, "--client-key", otherKey),
        "--client-key " + otherKey + " is not the key of the certificate in --client-cert " + cert);
    assertError(run("--url", url, "--client-cert", passwordFile.toString(), "--client-key", otherKey), "--client-cert " + passwordFile + " holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
    assertThat(refusals(metrics)).as("no request was sent").isEmpty();
  }

  @Test
  void aPasswordOnTheCommandLineIsRefusedWithoutRepeatingIt() {
    for (String[] args : List.of(
        new String[] {"--url", "http://127.0.0.1:9464/metrics", "--user", USER, "--password", "hunter2"},
        new String[] {"--url", "http://127.0.0.1:9464/metrics", "--user", USER, "--password=hunter2"})) {
      Run run = run(args);
      assertThat(run.exit()).isEqualTo(2);
      assertThat(run.out()).isEmpty();
      assertThat(run.err())
          .startsWith("resync-meter report: --password is not taken: a password on a command line is read by anyone who can list processes"
              + " and stays in the shell's history; put it in a file and give --password-file FILE\n")
          .contains(ReportCommand.USAGE)
          .doesNotContain("hunter2");
    }
  }

  @Test
  void accessOptionsThatDoNotGoTogetherAreABadCommandLine() {
    String url = "http://127.0.0.1:9464/metrics";
    String file = ReportCommandTest.scrape("josdk.prom");
    List<List<String>> lines = List.of(
        List.of("--url", url, "--user", USER),
        List.of("--url", url, "--password-file", "pw"),
        List.of("--url", url, "--client-cert", "c.pem"),
        List.of("--url", url, "--client-key", "k.pem"),
        List.of("--url", url, "--user", USER, "--password-file", "pw", "--bearer-token-file", "t"),
        List.of("--url", url, "--user", "a:b", "--password-file", "pw"),
        List.of("--ca-file", "ca.pem", file));
    List<String> problems = List.of(
        "--user needs --password-file FILE: the password is read from a file, never from the command line",
        "--password-file needs --user NAME",
        "--client-cert needs --client-key PEM",
        "--client-key needs --client-cert PEM",
        "--user and --bearer-token-file each set the Authorization header: give one",
        "--user takes a user name without ':' (basic auth cannot carry one in a name), not 'a:b'",
        "--ca-file is for reading an endpoint (--url) or --prometheus, not saved scrapes");
    for (int i = 0; i < lines.size(); i++) {
      Run run = run(lines.get(i).toArray(String[]::new));
      assertThat(run.exit()).as(String.join(" ", lines.get(i))).isEqualTo(2);
      assertThat(run.err()).startsWith("resync-meter report: " + problems.get(i) + "\n").contains(ReportCommand.USAGE);
    }
  }

  // ---- the same for --prometheus ------------------------------------------------------------------

  /** The agent's endpoint is no Prometheus, but it proves that --prometheus reaches a server with the same TLS and credentials. */
  @Test
  void thePrometheusConnectionUsesTheSameTlsAndBasicAuth() throws Exception {
    MetricsServer server = serve(metrics(), security(false, true));
    String url = "https://127.0.0.1:" + server.port();
    assertError(run("--prometheus", url, "--ca-file", ca()),
        url + " answered HTTP 401 Unauthorized: the server asks for credentials (basic auth) and --user/--password-file were not given");
    assertError(run("--prometheus", url), "cannot reach " + url + " over TLS: its certificate is not signed by a CA the JDK trusts (give its CA with --ca-file PEM)");
    assertError(run("--prometheus", url, "--ca-file", ca(), "--user", USER, "--password-file", passwordFile.toString()),
        url + " does not answer as the Prometheus query API (" + url + "/api/v1/query): HTTP 404 with no JSON (it starts: Not found: only /metrics is served)");
  }

  // ---- helpers ------------------------------------------------------------------------------------

  private static Run run(String... args) {
    Run run = ReportCommandTest.run(args);
    assertThat(run.err()).as("never a Java class name").doesNotContainPattern("(java|javax|sun)\\.[a-z]+\\.|Exception");
    return run;
  }

  private static ResyncMetrics metrics() {
    ResyncMetrics metrics = new ResyncMetrics();
    metrics.info("0.1.0", "client-java", "27.0.0");
    return metrics;
  }

  private static EndpointSecurity security(boolean clientCertificates, boolean basicAuth) throws Exception {
    return EndpointSecurity.load(
        certificates.serverCertificate(), certificates.serverKey(KeyEncoding.PKCS8), clientCertificates ? certificates.caCertificate() : null,
        basicAuth ? USER : null, basicAuth ? passwordFile : null, w -> {});
  }

  private MetricsServer serve(ResyncMetrics metrics, EndpointSecurity security) throws IOException {
    MetricsServer server = MetricsServer.start("127.0.0.1", 0, metrics, security);
    servers.add(server);
    return server;
  }

  private static String url(MetricsServer server, String scheme) {
    return scheme + "://127.0.0.1:" + server.port() + "/metrics";
  }

  private static String ca() {
    return certificates.caCertificate().toString();
  }

  /** The endpoint's count of refusals, by reason, from its own scrape. */
  private static List<String> refusals(ResyncMetrics metrics) {
    return metrics.scrape(null).body().lines().filter(l -> l.startsWith("resync_meter_endpoint_refusals_total") && !l.endsWith(" 0.0")).toList();
  }

  private static void assertError(Run run, String line) {
    assertThat(run.out()).isEmpty();
    assertThat(run.err()).isEqualTo("resync-meter report: " + line + "\n");
    assertThat(run.exit()).isEqualTo(1);
  }

  private static void assertOneLine(Run run, String start) {
    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.out()).isEmpty();
    assertThat(run.err().lines()).singleElement().asString().startsWith("resync-meter report: " + start);
  }
}
