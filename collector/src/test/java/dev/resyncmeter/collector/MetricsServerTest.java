package dev.resyncmeter.collector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class MetricsServerTest {

  private final ResyncMetrics metrics = new ResyncMetrics();

  @Test
  void servesTheScrapeOnGetMetrics() throws IOException {
    metrics.informer("ConfigMap").resync();
    try (MetricsServer server = MetricsServer.start("127.0.0.1", 0, metrics)) {
      HttpURLConnection connection = open(server, "/metrics", "GET");
      assertThat(connection.getResponseCode()).isEqualTo(200);
      assertThat(connection.getContentType()).isEqualTo("text/plain; version=0.0.4; charset=utf-8");
      assertThat(new String(connection.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
          .contains("informer_resyncs_total{kind=\"ConfigMap\"} 1.0");
    }
  }

  @Test
  void refusesOtherPathsAndMethods() throws IOException {
    try (MetricsServer server = MetricsServer.start("127.0.0.1", 0, metrics)) {
      assertThat(open(server, "/", "GET").getResponseCode()).isEqualTo(404);
      assertThat(open(server, "/metricsx", "GET").getResponseCode()).isEqualTo(404);
      HttpURLConnection post = open(server, "/metrics", "POST");
      assertThat(post.getResponseCode()).isEqualTo(405);
      assertThat(post.getHeaderField("Allow")).isEqualTo("GET, HEAD");
    }
  }

  @Test
  void aPortInUseIsAnIOException() throws IOException {
    try (MetricsServer first = MetricsServer.start("127.0.0.1", 0, metrics)) {
      assertThatThrownBy(() -> MetricsServer.start("127.0.0.1", first.port(), metrics)).isInstanceOf(IOException.class);
    }
  }

  @Test
  void itsThreadsAreDaemonsSoTheHostCanExit() throws IOException {
    try (MetricsServer server = MetricsServer.start("127.0.0.1", 0, metrics)) {
      assertThat(open(server, "/metrics", "GET").getResponseCode()).isEqualTo(200);
      assertThat(Thread.getAllStackTraces().keySet())
          .filteredOn(t -> t.getName().startsWith("resync-meter-http") || t.getName().startsWith("HTTP-Dispatcher"))
          .isNotEmpty()
          .allMatch(Thread::isDaemon);
    }
  }

  private static HttpURLConnection open(MetricsServer server, String path, String method) throws IOException {
    HttpURLConnection connection =
        (HttpURLConnection) URI.create("http://127.0.0.1:" + server.port() + path).toURL().openConnection();
    connection.setRequestMethod(method);
    connection.setConnectTimeout(5_000);
    connection.setReadTimeout(5_000);
    return connection;
  }
}
