package dev.resyncmeter.collector;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Serves {@code GET /metrics} from one daemon thread, so a slow scraper can never hold up the host's
 * threads and the server never keeps the JVM alive.
 */
public final class MetricsServer implements AutoCloseable {

  private final HttpServer server;
  private final ExecutorService executor;

  private MetricsServer(HttpServer server, ExecutorService executor) {
    this.server = server;
    this.executor = executor;
  }

  /**
   * Binds and starts the endpoint.
   *
   * @throws IOException when the address cannot be bound (port in use, unknown host)
   */
  public static MetricsServer start(String host, int port, ResyncMetrics metrics) throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 16);
    ExecutorService executor =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread thread = new Thread(r, "resync-meter-http");
              thread.setDaemon(true);
              return thread;
            });
    server.setExecutor(executor);
    server.createContext("/", exchange -> handle(exchange, metrics));
    startAsDaemon(server);
    return new MetricsServer(server, executor);
  }

  /**
   * The JDK server's dispatcher thread inherits the daemon flag of the thread that starts it; started
   * from the host's main thread it would keep the host's JVM from ever exiting.
   */
  private static void startAsDaemon(HttpServer server) throws IOException {
    Thread starter = new Thread(server::start, "resync-meter-http-start");
    starter.setDaemon(true);
    starter.start();
    try {
      starter.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while starting the metrics server", e);
    }
  }

  private static void handle(HttpExchange exchange, ResyncMetrics metrics) throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getPath();
      if (!"/metrics".equals(path)) {
        respond(exchange, 404, "text/plain; charset=utf-8", "Not found: only /metrics is served\n", true);
        return;
      }
      String method = exchange.getRequestMethod();
      boolean head = "HEAD".equals(method);
      if (!"GET".equals(method) && !head) {
        exchange.getResponseHeaders().set("Allow", "GET, HEAD");
        respond(exchange, 405, "text/plain; charset=utf-8", "Method not allowed\n", true);
        return;
      }
      ResyncMetrics.Scrape scrape = metrics.scrape(exchange.getRequestHeaders().getFirst("Accept"));
      respond(exchange, 200, scrape.contentType(), scrape.body(), !head);
    }
  }

  private static void respond(
      HttpExchange exchange, int status, String contentType, String body, boolean withBody)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", contentType);
    if (!withBody) {
      exchange.sendResponseHeaders(status, -1);
      return;
    }
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  /** The port actually bound (useful when asked for port 0). */
  public int port() {
    return server.getAddress().getPort();
  }

  public String host() {
    return server.getAddress().getHostString();
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
