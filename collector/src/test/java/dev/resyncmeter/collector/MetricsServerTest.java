package dev.resyncmeter.collector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The endpoint over real loopback sockets: what it serves, what it refuses, and what it survives. */
class MetricsServerTest {

  private static final String SERIES = "informer_resyncs_total{kind=\"ConfigMap\"} 1.0";

  private final ResyncMetrics metrics = new ResyncMetrics();
  private MetricsServer server;

  @BeforeEach
  void start() throws IOException {
    metrics.informer("ConfigMap").resync();
    server = MetricsServer.start("127.0.0.1", 0, metrics);
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void servesTheScrapeOnGetMetrics() throws IOException {
    HttpURLConnection connection = open("/metrics", "GET");
    assertThat(connection.getResponseCode()).isEqualTo(200);
    assertThat(connection.getContentType()).isEqualTo("text/plain; version=0.0.4; charset=utf-8");
    assertThat(new String(connection.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).contains(SERIES);
  }

  @Test
  void servesOpenMetricsWhenTheAcceptHeaderAsksForIt() throws Exception {
    RawHttp.Response response =
        send("GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: application/openmetrics-text;version=1.0.0,text/plain;q=0.5\r\n\r\n");
    assertThat(response.status()).isEqualTo(200);
    assertThat(response.header("Content-Type")).isEqualTo("application/openmetrics-text; version=1.0.0; charset=utf-8");
    assertThat(response.body()).contains("informer_resyncs_total{kind=\"ConfigMap\"} 1").endsWith("# EOF\n");
  }

  @Test
  void answersHttp10AndHttp11AndClosesAfterEachResponse() throws Exception {
    for (String version : List.of("HTTP/1.0", "HTTP/1.1")) {
      RawHttp.Response response = send("GET /metrics " + version + "\r\n\r\n");
      assertThat(response.status()).as(version).isEqualTo(200);
      assertThat(response.header("Connection")).isEqualTo("close");
      assertThat(response.header("Content-Length")).isEqualTo(Integer.toString(response.body().getBytes(StandardCharsets.UTF_8).length));
      assertThat(response.body()).contains(SERIES);
    }
  }

  @Test
  void headGivesTheHeadersOfTheScrapeWithoutItsBody() throws Exception {
    RawHttp.Response response = send("HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
    assertThat(response.status()).isEqualTo(200);
    assertThat(response.header("Content-Type")).isEqualTo("text/plain; version=0.0.4; charset=utf-8");
    assertThat(Integer.parseInt(response.header("Content-Length"))).isPositive();
    assertThat(response.body()).isEmpty();
  }

  @Test
  void aQueryStringOrAnAbsoluteTargetStillNamesMetrics() throws Exception {
    assertThat(send("GET /metrics?name[]=x HTTP/1.1\r\nHost: x\r\n\r\n").status()).isEqualTo(200);
    assertThat(send("GET http://127.0.0.1:" + server.port() + "/metrics HTTP/1.1\r\nHost: x\r\n\r\n").status()).isEqualTo(200);
  }

  @Test
  void everyOtherMethodOnMetricsIsMethodNotAllowed() throws Exception {
    for (String method : List.of("POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT", "PROPFIND", "get")) {
      RawHttp.Response response = send(method + " /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
      assertThat(response.status()).as(method).isEqualTo(405);
      assertThat(response.header("Allow")).as(method).isEqualTo("GET, HEAD");
      assertThat(response.body()).doesNotContain("informer_");
    }
  }

  @Test
  void everyOtherPathIsNotFoundWhateverTheMethod() throws Exception {
    List<String> paths = List.of("/", "/metrics/", "/metricsx", "/METRICS", "/metrics/../metrics", "/%6detrics", "//metrics", "*", "/health", "/-/healthy");
    for (String path : paths) {
      for (String method : List.of("GET", "HEAD", "POST", "DELETE")) {
        RawHttp.Response response = send(method + " " + path + " HTTP/1.1\r\nHost: x\r\n\r\n");
        assertThat(response.status()).as(method + " " + path).isEqualTo(404);
        assertThat(response.body()).doesNotContain("informer_");
      }
    }
  }

  @Test
  void malformedRequestsAreBadRequests() throws Exception {
    List<String> requests =
        List.of(
            "GET /metrics\r\n\r\n",
            "GET  /metrics HTTP/1.1\r\n\r\n",
            "GET /metrics HTTP/1.1 \r\n\r\n",
            "GET /metrics HTTP/1.1 extra\r\n\r\n",
            "G(T /metrics HTTP/1.1\r\n\r\n",
            "GET /metrics HTTX/1.1\r\n\r\n",
            "GET /metrics HTTP/1\r\n\r\n",
            "GET /met\u0001rics HTTP/1.1\r\n\r\n",
            "GET /métrics HTTP/1.1\r\n\r\n",
            "GET /metrics HTTP/1.1\r\nHost x\r\n\r\n",
            "GET /metrics HTTP/1.1\r\nHost : x\r\n\r\n",
            "GET /metrics HTTP/1.1\r\nHost: x\r\n folded: line\r\n\r\n",
            "GET /metrics HTTP/1.1\r\nAccept: a\u0000b\r\n\r\n",
            "GET /metrics HTTP/1.1\r\nAccept: a\rb\r\n\r\n");
    for (String request : requests) {
      assertThat(send(request).status()).as(request).isEqualTo(400);
    }
  }

  @Test
  void otherHttpVersionsAreNotSupported() throws Exception {
    assertThat(send("GET /metrics HTTP/2.0\r\n\r\n").status()).isEqualTo(505);
    assertThat(send("GET /metrics HTTP/0.9\r\n\r\n").status()).isEqualTo(505);
  }

  @Test
  void garbageBytesAreBadRequests() throws Exception {
    Random random = new Random(42);
    for (int i = 0; i < 20; i++) {
      byte[] garbage = new byte[1 + random.nextInt(2000)];
      random.nextBytes(garbage);
      garbage[0] = (byte) (0x80 | garbage[0]); // never a valid method character
      byte[] request = concat(garbage, "\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
      assertThat(RawHttp.send(server.port(), request, true, 30_000).status()).isEqualTo(400);
    }
    // What a TLS client sends first: no line end at all, and a first byte no request starts with.
    byte[] clientHello = {0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, (byte) 0xfc, 0x03, 0x03};
    assertThat(RawHttp.send(server.port(), clientHello, true, 30_000).status()).isEqualTo(400);
    assertThat(send("GET /metrics HTTP/1.1\r\n\r\n").status()).isEqualTo(200);
  }

  @Test
  void aHeaderOfOneMebibyteIsRefusedAsTooLarge() throws Exception {
    String request = "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(1024 * 1024) + "\r\n\r\n";
    RawHttp.Response response = send(request);
    assertThat(response.status()).isEqualTo(431);
    assertThat(response.body()).doesNotContain("informer_");
    assertThat(send("GET /metrics HTTP/1.1\r\n\r\n").status()).isEqualTo(200);
  }

  @Test
  void aRequestLineOf100KibibytesIsRefusedAsTooLong() throws Exception {
    RawHttp.Response response = send("GET /metrics?" + "q".repeat(100 * 1024) + " HTTP/1.1\r\nHost: x\r\n\r\n");
    assertThat(response.status()).isEqualTo(414);
    assertThat(send("GET /metrics HTTP/1.1\r\n\r\n").status()).isEqualTo(200);
  }

  @Test
  void aPostDeclaringAHugeBodyIsRefusedWithoutReadingIt() throws Exception {
    // The body never comes: the server must not wait for it.
    RawHttp.Response declared =
        RawHttp.send(
            server.port(),
            "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000000\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1),
            false,
            30_000);
    assertThat(declared.status()).isEqualTo(405);
    assertThat(declared.header("Allow")).isEqualTo("GET, HEAD");
    // The body comes, a mebibyte of it: the answer still reaches the client intact.
    RawHttp.Response sent = send("POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\n\r\n" + "b".repeat(1024 * 1024));
    assertThat(sent.status()).isEqualTo(405);
    RawHttp.Response chunked = send("POST /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n100000\r\n" + "c".repeat(0x100000) + "\r\n0\r\n\r\n");
    assertThat(chunked.status()).isEqualTo(405);
    assertThat(send("GET /metrics HTTP/1.1\r\n\r\n").status()).isEqualTo(200);
  }

  @Test
  void stalledClientsDoNotHoldUpScrapesAndAreClosedInTheEnd() throws Exception {
    try (Socket silent = connect();
        Socket half = connect()) {
      half.getOutputStream().write("GET /metrics HTTP/1.1\r\nHost: x\r\nAcc".getBytes(StandardCharsets.ISO_8859_1));
      half.getOutputStream().flush();
      for (int i = 0; i < 3; i++) {
        RawHttp.Response scrape = send("GET /metrics HTTP/1.1\r\n\r\n");
        assertThat(scrape.status()).isEqualTo(200);
        assertThat(scrape.body()).contains(SERIES);
      }
      // Both are closed by the server once the head timeout passes; the reads below are bounded.
      int bound = MetricsServer.CONNECTION_TIMEOUT_MILLIS;
      silent.setSoTimeout(bound);
      assertThat(silent.getInputStream().read()).as("silent connection closed without an answer").isEqualTo(-1);
      half.setSoTimeout(bound);
      assertThat(RawHttp.parse(RawHttp.readToEnd(half.getInputStream())).status()).isEqualTo(408);
    }
    assertThat(send("GET /metrics HTTP/1.1\r\n\r\n").status()).isEqualTo(200);
  }

  @Test
  void sixtyHeldConnectionsDoNotKeepAScrapeOutNorAddThreads() throws Exception {
    List<Socket> held = new ArrayList<>();
    try {
      for (int i = 0; i < 60; i++) {
        Socket socket = connect();
        if (i % 2 == 1) {
          // half of them a slowloris: a head that never ends
          socket.getOutputStream().write("GET /metrics HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.ISO_8859_1));
          socket.getOutputStream().flush();
        }
        held.add(socket);
      }
      long start = System.nanoTime();
      RawHttp.Response scrape = RawHttp.send(server.port(), "GET /metrics HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1), false, 5_000);
      assertThat(scrape.status()).isEqualTo(200);
      assertThat(scrape.body()).contains(SERIES);
      assertThat(System.nanoTime() - start).as("answered within 5 s").isLessThan(5_000_000_000L);
      // The handler threads, one acceptor and one deadline timer: nothing more, however many connect.
      assertThat(serverThreads()).hasSizeLessThanOrEqualTo(MetricsServer.MAX_CONNECTIONS + 2);
    } finally {
      for (Socket socket : held) {
        socket.close();
      }
    }
    // Those beyond the slots were closed to make room, and counted so.
    assertThat(refusals("idle_closed")).isGreaterThanOrEqualTo(60 + 1 - MetricsServer.MAX_CONNECTIONS);
  }

  @Test
  void aTlsClientOnThePlainPortIsAnsweredAtOnce() throws Exception {
    long start = System.nanoTime();
    RawHttp.Response response = RawHttp.send(server.port(), new byte[] {0x16, 0x03, 0x01, 0x00, 0x05, 0x01, 0x00, 0x00, 0x01, 0x00}, false, 5_000);
    assertThat(response.status()).isEqualTo(400);
    assertThat(response.body()).isEqualTo("This port serves plain HTTP, not TLS: use http://\n");
    assertThat(System.nanoTime() - start).as("not at the head timeout").isLessThan(MetricsServer.HEAD_TIMEOUT_MILLIS * 1_000_000L / 2);
    assertThat(refusals("bad_request")).isEqualTo(1);
  }

  @Test
  void aPortInUseIsAnIOException() {
    assertThatThrownBy(() -> MetricsServer.start("127.0.0.1", server.port(), metrics)).isInstanceOf(IOException.class);
  }

  @Test
  void anUnknownHostIsAnIOException() {
    assertThatThrownBy(() -> MetricsServer.start("no-such-host.invalid", 0, metrics)).isInstanceOf(IOException.class);
  }

  @Test
  void itsThreadsAreDaemonsSoTheHostCanExit() throws IOException {
    assertThat(open("/metrics", "GET").getResponseCode()).isEqualTo(200);
    assertThat(serverThreads()).isNotEmpty().allMatch(Thread::isDaemon);
  }

  @Test
  void closingEndsItsThreads() throws Exception {
    assertThat(open("/metrics", "GET").getResponseCode()).isEqualTo(200);
    server.close();
    for (int i = 0; i < 300 && !serverThreads().isEmpty(); i++) {
      Thread.sleep(100);
    }
    assertThat(serverThreads()).isEmpty();
  }

  private List<Thread> serverThreads() {
    String prefix = "resync-meter-http-" + server.port() + "-";
    return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith(prefix)).toList();
  }

  private double refusals(String reason) {
    return Refusals.of(metrics, reason);
  }

  private RawHttp.Response send(String request) throws Exception {
    return RawHttp.send(server.port(), request);
  }

  private Socket connect() throws IOException {
    return new Socket(InetAddress.getLoopbackAddress(), server.port());
  }

  private HttpURLConnection open(String path, String method) throws IOException {
    HttpURLConnection connection =
        (HttpURLConnection) URI.create("http://127.0.0.1:" + server.port() + path).toURL().openConnection();
    connection.setRequestMethod(method);
    connection.setConnectTimeout(5_000);
    connection.setReadTimeout(5_000);
    return connection;
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] all = new byte[a.length + b.length];
    System.arraycopy(a, 0, all, 0, a.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
  }
}
