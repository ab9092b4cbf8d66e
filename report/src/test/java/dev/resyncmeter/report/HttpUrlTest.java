package dev.resyncmeter.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The one URL check of the agent's endpoint ({@code --url}) and of a Prometheus server ({@code --prometheus}). */
class HttpUrlTest {

  private static final String EXAMPLE = "http://127.0.0.1:9464/metrics";

  @ParameterizedTest
  @ValueSource(
      strings = {
        "http://127.0.0.1:9464/metrics",
        "https://metrics.example/metrics",
        "http://[::1]:9464/metrics",
        "http://localhost:65535",
        "http://prometheus:9090/prometheus/",
        "http://127.0.0.1:9464/metrics?name[]=informer_resyncs_total",
      })
  void acceptsAnHttpOrHttpsUrlWithAHost(String url) throws ReportException {
    assertThat(HttpUrl.of(url, EXAMPLE)).isEqualTo(URI.create(url));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      value = {
        "127.0.0.1:9464/metrics | '127.0.0.1:9464/metrics' is not a URL",
        "http://[::1/metrics | 'http://[::1/metrics' is not a URL",
        "http://a b/metrics | 'http://a b/metrics' is not a URL",
        "ftp://example/metrics | 'ftp://example/metrics' is not an http URL such as http://127.0.0.1:9464/metrics",
        "metrics.example | 'metrics.example' is not an http URL such as http://127.0.0.1:9464/metrics",
        "http:/metrics | 'http:/metrics' is not an http URL such as http://127.0.0.1:9464/metrics",
        "file:///tmp/scrape.prom | 'file:///tmp/scrape.prom' is not an http URL such as http://127.0.0.1:9464/metrics",
        "http://127.0.0.1:99999/metrics | 'http://127.0.0.1:99999/metrics' is not a URL: its port is above 65535",
      })
  void refusesAnythingElseInOneLineNamingTheUrl(String url, String refusal) {
    assertThatThrownBy(() -> HttpUrl.of(url, EXAMPLE)).isInstanceOf(ReportException.class).hasMessage(refusal);
  }

  @ParameterizedTest
  @ValueSource(strings = {"http://prometheus:9090", "http://prometheus:9090/", "https://mimir.example/prometheus"})
  void aServersBaseUrlMayCarryAPath(String url) throws ReportException {
    assertThat(HttpUrl.base(url, "http://prometheus:9090")).isEqualTo(URI.create(url));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      value = {
        "http://prometheus:9090/?query=up | 'http://prometheus:9090/?query=up' has a query or fragment: give the server's base URL, such as http://prometheus:9090",
        "http://prometheus:9090/#graph | 'http://prometheus:9090/#graph' has a query or fragment: give the server's base URL, such as http://prometheus:9090",
        "ftp://prometheus | 'ftp://prometheus' is not an http URL such as http://prometheus:9090",
        "http://prometheus:70000 | 'http://prometheus:70000' is not a URL: its port is above 65535",
      })
  void aServersBaseUrlHasNoQueryOrFragment(String url, String refusal) {
    assertThatThrownBy(() -> HttpUrl.base(url, "http://prometheus:9090")).isInstanceOf(ReportException.class).hasMessage(refusal);
  }
}
