package dev.resyncmeter.examples.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resyncmeter.testkit.Scrape;
import java.net.HttpURLConnection;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The agent's endpoint, on an idle host: formats by Accept header, nothing but GET and HEAD /metrics,
 * and bad or stalled clients refused without harm to scrapes or to the host (which must still end
 * with its own exit code, checked in {@link #stop}).
 */
class MetricsEndpointIT {

  private static AgentProcess host;
  private static String url;

  @BeforeAll
  static void start() throws Exception {
    host = AgentProcess.start("host=127.0.0.1,port=0", Map.of(), "idle");
    url = host.metricsUrl(Duration.ofSeconds(30));
    host.awaitStdout("host ran"::equals, Duration.ofSeconds(30));
  }

  @AfterAll
  static void stop() throws Exception {
    AgentProcess.end(host);
  }

  @Test
  void servesThePrometheusTextFormatByDefault() throws Exception {
    Scrape scrape = Scrape.of(url);
    assertThat(scrape.status()).isEqualTo(200);
    assertThat(scrape.contentType()).isEqualTo("text/plain; version=0.0.4; charset=utf-8");
  }

  @Test
  void servesOpenMetricsWhenTheScraperAsksForIt() throws Exception {
    Scrape scrape = Scrape.of(url, "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5");
    assertThat(scrape.status()).isEqualTo(200);
    assertThat(scrape.contentType()).startsWith("application/openmetrics-text; version=1.0.0");
    assertThat(scrape.body()).endsWith("# EOF\n");
  }

  @Test
  void otherPathsAreNotFound() throws Exception {
    assertThat(Scrape.of(url.replace("/metrics", "/")).status()).isEqualTo(404);
    assertThat(Scrape.of(url + "/extra").status()).isEqualTo(404);
  }

  @Test
  void onlyGetAndHeadAreAllowed() throws Exception {
    for (String method : new String[] {"POST", "PUT", "DELETE", "OPTIONS"}) {
      HttpURLConnection connection = (HttpURLConnection) URI.create(url).toURL().openConnection();
      connection.setConnectTimeout(5_000);
      connection.setReadTimeout(10_000);
      connection.setRequestMethod(method);
      assertThat(connection.getResponseCode()).as(method).isEqualTo(405);
      assertThat(connection.getHeaderField("Allow")).isEqualTo("GET, HEAD");
      connection.disconnect();
    }
    assertThat(RawRequest.status(url, "HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n")).isEqualTo(200);
  }

  @Test
  void malformedOversizedAndStalledRequestsAreRefusedWhileScrapesGoOn() throws Exception {
    URI uri = URI.create(url);
    try (Socket stalled = new Socket(uri.getHost(), uri.getPort())) {
      stalled.getOutputStream().write("GET /metrics HTTP/1.1\r\nHo".getBytes(StandardCharsets.ISO_8859_1));
      assertThat(RawRequest.status(url, "\u0016\u0003\u0001garbage\u00ff\r\n\r\n")).isEqualTo(400);
      assertThat(RawRequest.status(url, "GET /metrics HTTP/1.1\r\nX-Big: " + "a".repeat(1024 * 1024) + "\r\n\r\n")).isEqualTo(431);
      assertThat(RawRequest.status(url, "GET /" + "m".repeat(100 * 1024) + " HTTP/1.1\r\n\r\n")).isEqualTo(414);
      assertThat(RawRequest.status(url, "POST /metrics HTTP/1.1\r\nContent-Length: 1000000000000\r\n\r\n")).isEqualTo(405);
      // The stalled connection is still open: scrapes answer anyway.
      assertThat(Scrape.of(url).status()).isEqualTo(200);
    }
    assertThat(Scrape.of(url).status()).isEqualTo(200);
  }
}
