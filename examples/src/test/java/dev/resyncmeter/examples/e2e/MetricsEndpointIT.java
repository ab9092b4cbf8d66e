package dev.resyncmeter.examples.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The agent's endpoint, on an idle host: formats by Accept header, and nothing but /metrics. */
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
}
