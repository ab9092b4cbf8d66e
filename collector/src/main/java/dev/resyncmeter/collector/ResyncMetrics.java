package dev.resyncmeter.collector;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The measurement engine's entry point: one registry holding every meter of the metric contract, and
 * the lookups that the instrumentation (or a controller using this as a library) calls.
 */
public final class ResyncMetrics {

  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Map<String, InformerMetrics> informers = new ConcurrentHashMap<>();
  private final Map<HandlerKey, HandlerMetrics> handlers = new ConcurrentHashMap<>();
  private final Map<String, Counter> errors = new ConcurrentHashMap<>();
  private final Map<String, QueueMetrics> queues = new ConcurrentHashMap<>();
  private final Map<String, ControllerMetrics> controllers = new ConcurrentHashMap<>();

  public InformerMetrics informer(String kind) {
    return informers.computeIfAbsent(kind, k -> new InformerMetrics(registry, k));
  }

  public HandlerMetrics handler(String kind, String handler) {
    return handlers.computeIfAbsent(
        new HandlerKey(kind, handler), key -> new HandlerMetrics(registry, key.kind, key.handler));
  }

  /** A tracker for one workqueue; {@code name} may still change to its controller's before first use. */
  public QueueTracker queue(String name) {
    return new QueueTracker(this, name);
  }

  /** Queues of one name share their meters (the gauges follow the first tracker of that name). */
  QueueMetrics queueMetrics(String name, QueueTracker tracker) {
    return queues.computeIfAbsent(name, n -> new QueueMetrics(registry, n, tracker));
  }

  public ControllerMetrics controller(String name) {
    return controllers.computeIfAbsent(name, n -> new ControllerMetrics(registry, n));
  }

  /** Counts a fault that the agent caught in itself, by the part of the agent it happened in. */
  public void error(String component) {
    errors
        .computeIfAbsent(
            component,
            c ->
                Counter.builder("resync.meter.errors")
                    .description("Faults the agent caught in itself, by component; the host was not affected.")
                    .tag(Labels.COMPONENT, c)
                    .register(registry))
        .increment();
  }

  /** Publishes {@code resync_meter_info}: the agent's version and an instrumented client library. */
  public void info(String version, String client, String clientVersion) {
    Gauge.builder("resync.meter.info", () -> 1)
        .description("Always 1: the resync-meter version and the client library it instruments.")
        .tag("version", version)
        .tag("client", client)
        .tag("client_version", clientVersion)
        .register(registry);
  }

  /** The scrape body in the format that suits the request's Accept header. */
  public Scrape scrape(String acceptHeader) {
    String contentType = ScrapeFormat.contentTypeFor(acceptHeader);
    return new Scrape(contentType, registry.scrape(contentType));
  }

  /** For tests and embedding: the underlying registry. */
  public PrometheusMeterRegistry registry() {
    return registry;
  }

  /** A rendered scrape body and its content type. */
  public record Scrape(String contentType, String body) {}

  private record HandlerKey(String kind, String handler) {}
}
