package dev.resyncmeter.hosts.ownlibraries;

import static net.bytebuddy.matcher.ElementMatchers.named;

import ch.qos.logback.classic.LoggerContext;
import com.sun.net.httpserver.HttpServer;
import dev.resyncmeter.examples.Main;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.implementation.FixedValue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A controller with its own copies of the libraries the agent carries inside it, in other versions:
 * it serves its own Micrometer registry with a meter of its own, makes a class with its own
 * ByteBuddy and logs through Logback in its own pattern, then runs the examples' scenario (real
 * client-java informers and controllers, printing their own counts) with the arguments it was given.
 */
public final class OwnLibrariesHost {

  private static final Logger LOG = LoggerFactory.getLogger(OwnLibrariesHost.class);

  private OwnLibrariesHost() {}

  public static void main(String[] args) throws Exception {
    System.out.println("host libraries " + jarOf(MeterRegistry.class) + " " + jarOf(ByteBuddy.class) + " " + jarOf(LoggerContext.class));
    System.out.println("host slf4j binding " + LoggerFactory.getILoggerFactory().getClass().getName());

    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    Counter generated = Counter.builder("host.generated.classes").description("Classes the host made with its ByteBuddy").register(registry);
    HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/metrics",
        exchange -> {
          byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
    System.out.println("host metrics http://127.0.0.1:" + server.getAddress().getPort() + "/metrics");

    Object made =
        new ByteBuddy()
            .subclass(Object.class)
            .name("dev.resyncmeter.hosts.ownlibraries.Generated")
            .method(named("toString"))
            .intercept(FixedValue.value("made by the host's ByteBuddy"))
            .make()
            .load(OwnLibrariesHost.class.getClassLoader())
            .getLoaded()
            .getConstructor()
            .newInstance();
    generated.increment();
    System.out.println("host bytebuddy " + made);
    LOG.info("host started, serving its own registry");

    Main.main(args);
  }

  /** The file name of the jar a class came from: which copy of a library the host really runs. */
  private static String jarOf(Class<?> type) throws Exception {
    return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).getFileName().toString();
  }
}
