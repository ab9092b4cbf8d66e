package dev.resyncmeter.collector;

import dev.resyncmeter.collector.endpoint.Refusal;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;

/**
 * The measurement engine's entry point: the meters of the metric contract, and the lookups that the
 * instrumentation (or a controller using this as a library) calls once per handler, queue and
 * controller. Counts made on every handler call, queue operation and reconcile are plain counters
 * and bucket arrays that a scrape reads; the rest are Micrometer meters in one registry, which
 * serves both in one scrape. The registry is built at the first scrape ({@link OnDemandRegistry}).
 */
public final class ResyncMetrics {

  /** Distinct values kept per label (kind, handler, controller, queue name, component) by default. */
  public static final int DEFAULT_MAX_VALUES_PER_LABEL = 200;

  private final OnDemandRegistry registry = new OnDemandRegistry(this::collectCounts);
  private final Map<String, InformerMetrics> informers = new ConcurrentHashMap<>();
  private final Map<HandlerKey, HandlerMetrics> handlers = new ConcurrentHashMap<>();
  private final Map<String, LongAdder> errors = new ConcurrentHashMap<>();
  private final LongAdder[] refusals = new LongAdder[Refusal.values().length];
  private final Map<String, QueueMetrics> queues = new ConcurrentHashMap<>();
  private final Map<String, ControllerMetrics> controllers = new ConcurrentHashMap<>();
  private final CappedLabel kinds;
  private final CappedLabel handlerNames;
  private final CappedLabel controllerNames;
  private final CappedLabel queueNames;
  private final CappedLabel components;
  private final RestClientMetrics restClient;
  private final OwnWrites ownWrites = new OwnWrites();
  private final Observability observability;

  public ResyncMetrics() {
    this(new Observability());
  }

  /** Counts what {@code observability} says the instrumentation can see. */
  public ResyncMetrics(Observability observability) {
    this(DEFAULT_MAX_VALUES_PER_LABEL, observability);
  }

  /** Keeps at most {@code maxValuesPerLabel} distinct values of each label; later ones overflow. */
  public ResyncMetrics(int maxValuesPerLabel) {
    this(maxValuesPerLabel, new Observability());
  }

  public ResyncMetrics(int maxValuesPerLabel, Observability observability) {
    this.observability = observability;
    kinds = new CappedLabel(registry, LabelNames.KIND, maxValuesPerLabel);
    handlerNames = new CappedLabel(registry, LabelNames.HANDLER, maxValuesPerLabel);
    controllerNames = new CappedLabel(registry, "controller", maxValuesPerLabel);
    queueNames = new CappedLabel(registry, "name", maxValuesPerLabel);
    components = new CappedLabel(registry, LabelNames.COMPONENT, maxValuesPerLabel);
    restClient = new RestClientMetrics(new CappedLabel(registry, "host", maxValuesPerLabel));
    startTime(System.currentTimeMillis() / 1000.0);
  }

  /**
   * Publishes {@code resync_meter_start_time_seconds}: when every count of this collector started
   * from zero (the agent's start, or its attach). A reader of the counters over a time range (the
   * report from Prometheus) tells from it a pod that started inside the range, whose counts are whole,
   * from one that started before, and a restart from a counter that merely went on.
   */
  private void startTime(double unixSeconds) {
    registry.register(
        DeferredMeter.gauge(
            "resync.meter.start.time.seconds", "When this agent's counts started from zero (its start or attach), in Unix seconds.", null, () -> unixSeconds));
  }

  /** The hot-path counts: the collector's own counters and bucket arrays, read only here. */
  private MetricSnapshots collectCounts() {
    ownWrites.settleLost(); // what waited on a lost write counts in this scrape
    Export out = new Export();
    handlers.values().forEach(h -> h.export(out));
    queues.values().forEach(q -> q.export(out));
    controllers.values().forEach(c -> c.export(out));
    restClient.export(out);
    return out.snapshots();
  }

  public InformerMetrics informer(String kind) {
    return informers.computeIfAbsent(kinds.admit(kind), k -> new InformerMetrics(registry, k));
  }

  public HandlerMetrics handler(String kind, String handler) {
    return handlers.computeIfAbsent(
        new HandlerKey(kinds.admit(kind), handlerNames.admit(handler)), key -> new HandlerMetrics(registry, key.kind, key.handler));
  }

  /** What the instrumentation feeding this collector can see now; its parts tell it. */
  public Observability observability() {
    return observability;
  }

  /** A tracker for one workqueue; {@code name} may still change to its controller's before first use. */
  public QueueTracker queue(String name) {
    return new QueueTracker(name, this::queueMetrics, observability);
  }

  /** Queues of one name are exported together: their counts and gauges add up. */
  private QueueMetrics queueMetrics(String name) {
    return queues.computeIfAbsent(queueNames.admit(name), QueueMetrics::new);
  }

  public ControllerMetrics controller(String name) {
    return controllers.computeIfAbsent(controllerNames.admit(name), admitted -> new ControllerMetrics(admitted, observability));
  }

  /** The writes this process sent, as far as needed to tell its echoes. */
  public OwnWrites ownWrites() {
    return ownWrites;
  }

  /** The REST client meters: every HTTP request the client library sends. */
  public RestClientMetrics restClient() {
    return restClient;
  }

  /**
   * An API request with {@code verb} is being sent on the thread of {@code context}: it counts under
   * the reconcile running there, else under the handler call running there ({@code handlerLabel}, the
   * handler's label, which is its controller's name for the handlers a controller made); a request
   * made by neither (an informer's list and watch, leader election, other threads) does not count here.
   */
  public void apiRequestSent(ThreadContext context, ApiVerb verb, String handlerLabel) {
    Reconcile reconcile = context.reconcile();
    if (reconcile.running()) {
      reconcile.requestSent(verb);
      return;
    }
    Trigger handlerTrigger = context.handlerCall().trigger();
    if (handlerTrigger != null && handlerLabel != null) {
      controller(handlerLabel).apiRequested(handlerTrigger, verb);
    }
  }

  /** Counts a fault that the agent caught in itself, by the part of the agent it happened in. */
  public void error(String component) {
    errors.computeIfAbsent(components.admit(component), this::errorCounter).increment();
  }

  private LongAdder errorCounter(String component) {
    LongAdder count = new LongAdder();
    registry.register(
        DeferredMeter.counter(
            "resync.meter.errors", "Faults the agent caught in itself, by component; the host was not affected.", count, LabelNames.COMPONENT, component));
    return count;
  }

  /**
   * Publishes {@code resync_meter_endpoint_refusals_total{reason}}, every reason at 0 from the start
   * so that a rate over it exists before the first refusal. Called when the endpoint starts serving.
   */
  public synchronized void endpointRefusals() {
    for (Refusal refusal : Refusal.values()) {
      if (refusals[refusal.ordinal()] == null) {
        LongAdder count = new LongAdder();
        registry.register(
            DeferredMeter.counter(
                "resync.meter.endpoint.refusals",
                "Connections and requests the metrics endpoint refused, by reason; refusals are counted here, never logged.",
                count,
                "reason",
                refusal.reason()));
        refusals[refusal.ordinal()] = count;
      }
    }
  }

  /** Counts a refusal of the endpoint's (nothing before {@link #endpointRefusals}). */
  public void endpointRefused(Refusal refusal) {
    LongAdder count = refusals[refusal.ordinal()];
    if (count != null) {
      count.increment();
    }
  }

  /**
   * Publishes {@code resync_meter_instrumentation_active{component}}: 1 while that part of the
   * instrumentation counts, 0 once it switched itself off. A dashboard can then tell "no no-op
   * updates" from "not counting".
   */
  public void instrumentation(String component, BooleanSupplier active) {
    registry.register(
        DeferredMeter.gauge(
            "resync.meter.instrumentation.active",
            "1 while this part of the agent's instrumentation counts; 0 once it switched itself off (its WARN line says why).",
            null,
            () -> active.getAsBoolean() ? 1 : 0,
            LabelNames.COMPONENT,
            components.admit(component)));
  }

  /** Publishes {@code resync_meter_info}: the agent's version and an instrumented client library. */
  public void info(String version, String client, String clientVersion) {
    registry.register(
        DeferredMeter.gauge(
            "resync.meter.info",
            "Always 1: the resync-meter version and the client library it instruments.",
            null,
            () -> 1,
            "version",
            version,
            "client",
            client,
            "client_version",
            clientVersion));
  }

  /** The scrape body in the format that suits the request's Accept header. */
  public Scrape scrape(String acceptHeader) {
    String contentType = ScrapeFormat.contentTypeFor(acceptHeader);
    return new Scrape(contentType, registry.get().scrape(contentType));
  }

  /** Whether a scrape (or {@link #registry()}) has built the Micrometer registry yet. */
  boolean registryBuilt() {
    return registry.isBuilt();
  }

  /** For tests and embedding: the underlying registry (built now if no scrape has built it yet). */
  public PrometheusMeterRegistry registry() {
    return registry.get();
  }

  /** A rendered scrape body and its content type. */
  public record Scrape(String contentType, String body) {}

  private record HandlerKey(String kind, String handler) {}
}
