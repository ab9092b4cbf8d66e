package dev.resyncmeter.report;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** An agent's endpoint on loopback that answers its scrapes in turn, from the first again after the last. */
final class FakeEndpoint implements AutoCloseable {

  private final HttpServer server;

  FakeEndpoint(List<String> scrapes) throws IOException {
    AtomicInteger served = new AtomicInteger();
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/metrics", exchange -> {
      byte[] body = scrapes.get(served.getAndIncrement() % scrapes.size()).getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(200, body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    server.start();
  }

  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/metrics";
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
