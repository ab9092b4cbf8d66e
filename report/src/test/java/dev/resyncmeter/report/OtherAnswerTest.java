package dev.resyncmeter.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * HTTP 404 says whose it is: from the agent, a path other than /metrics; from anything else, a port
 * that is not the agent's, with where the agent's port is set. It never says the agent is missing.
 */
class OtherAnswerTest {

  static final String NOT_THE_AGENT =
      "something other than the resync-meter agent answers on that port; the agent's start line names the port it serves"
          + " (its port= argument or RESYNC_METER_PORT, 9464 by default)";

  @Test
  void aNotFoundFromAnotherProgramSaysItIsNotTheAgentAndWhereItsPortIsSet() throws IOException {
    try (Endpoint other = new Endpoint(404, "<html><body>Whitelabel Error Page</body></html>\n")) {
      assertThat(report(other.url("/metrics")))
          .isEqualTo("resync-meter report: " + other.url("/metrics") + " answered HTTP 404 Not Found, not the metrics: " + NOT_THE_AGENT + "\n");
    }
    try (Endpoint silent = new Endpoint(404, "")) {
      assertThat(report(silent.url("/metrics"))).contains(NOT_THE_AGENT);
    }
  }

  @Test
  void theAgentsOwnNotFoundSaysItServesOnlyItsPath() throws IOException {
    try (Endpoint agent = new Endpoint(404, OtherAnswer.AGENTS_NOT_FOUND + "\n")) {
      assertThat(report(agent.url("/metrcs")))
          .isEqualTo(
              "resync-meter report: " + agent.url("/metrcs") + " answered HTTP 404 Not Found, not the metrics: the agent serves its metrics at the path /metrics only\n");
    }
  }

  @Test
  void otherStatusesAreNamedAsTheyCame() {
    assertThat(OtherAnswer.of("http://127.0.0.1:9464/metrics", 500, "Server Error", "oops"))
        .isEqualTo("http://127.0.0.1:9464/metrics answered HTTP 500 Server Error, not the metrics");
  }

  private static String report(String url) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit = ReportCommand.run(new String[] {"--url", url, "--window", "1ms"}, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(exit).isEqualTo(1);
    assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
    return err.toString(StandardCharsets.UTF_8);
  }

  /** An HTTP server on a loopback port answering every request with one status and body. */
  private static final class Endpoint implements AutoCloseable {
    private final HttpServer server;

    Endpoint(int status, String body) throws IOException {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
      server.createContext("/", exchange -> {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        exchange.getResponseBody().write(bytes);
        exchange.close();
      });
      server.start();
    }

    String url(String path) {
      return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    @Override
    public void close() {
      server.stop(0);
    }
  }
}
