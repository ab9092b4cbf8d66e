package dev.resyncmeter.collector;

import io.prometheus.metrics.model.snapshots.Labels;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * The counts of one event handler on one informer ({@code kind}, {@code handler}). A handler call
 * adds to exactly one counter: a changed update to its cause's, a no-op update to its cause's and
 * outcome's, any other call to its type's. The exported totals ({@code informer_notifications},
 * {@code informer_updates}) are sums of those, made at scrape time. A series appears once it has
 * counted something, as a meter made on first use would.
 */
public final class HandlerMetrics {

  private static final NotificationType[] TYPES = NotificationType.values();
  private static final UpdateCause[] CAUSES = UpdateCause.values();
  private static final NoopOutcome[] OUTCOMES = NoopOutcome.values();

  private final OnDemandRegistry registry;
  private final String kind;
  private final String handler;

  /** Calls that are not classified updates, by type. */
  private final LongAdder[] calls = adders(TYPES.length);
  /** Updates whose resource version changed, by cause. */
  private final LongAdder[] changed = adders(CAUSES.length);
  /** No-op updates, by cause then outcome. */
  private final LongAdder[] noops = adders(CAUSES.length * OUTCOMES.length);
  /** Updates that were echoes of a write from this process. */
  private final LongAdder ownWriteUpdates = new LongAdder();
  private final AtomicBoolean resyncPeriodPublished = new AtomicBoolean();
  private volatile double resyncPeriodSeconds;

  HandlerMetrics(OnDemandRegistry registry, String kind, String handler) {
    this.registry = registry;
    this.kind = kind;
    this.handler = handler;
  }

  public String kind() {
    return kind;
  }

  public String handler() {
    return handler;
  }

  /** One handler call of the given type. */
  public void notification(NotificationType type) {
    calls[type.ordinal()].increment();
  }

  /** One {@code onUpdate} call, with its cause and whether the resource version was unchanged (a no-op). */
  public void update(UpdateCause cause, boolean unchanged, NoopOutcome outcome) {
    if (unchanged) {
      noops[cause.ordinal() * OUTCOMES.length + outcome.ordinal()].increment();
    } else {
      changed[cause.ordinal()].increment();
    }
  }

  /** One {@code onUpdate} call whose new object is the one a write from this process was answered with. */
  public void ownWriteUpdate() {
    ownWriteUpdates.increment();
  }

  /** The resync period in effect for this handler, in milliseconds; 0 means resync is off. */
  public void resyncPeriodMillis(long millis) {
    resyncPeriodSeconds = millis / 1000.0;
    if (!resyncPeriodPublished.get() && resyncPeriodPublished.compareAndSet(false, true)) {
      registry.register(
          DeferredMeter.gauge(
              "informer.resync.period",
              "The resync period in effect for the handler, in seconds; 0 when resync is off.",
              "seconds",
              () -> resyncPeriodSeconds,
              LabelNames.KIND,
              kind,
              LabelNames.HANDLER,
              handler));
    }
  }

  void export(Export out) {
    long[] types = new long[TYPES.length];
    for (NotificationType type : TYPES) {
      types[type.ordinal()] = calls[type.ordinal()].sum();
    }
    for (UpdateCause cause : CAUSES) {
      long changedUpdates = changed[cause.ordinal()].sum();
      long noopUpdates = 0;
      for (NoopOutcome outcome : OUTCOMES) {
        long n = noops[cause.ordinal() * OUTCOMES.length + outcome.ordinal()].sum();
        noopUpdates += n;
        if (n > 0) {
          out.counter(
              "informer_noop_updates",
              "Updates whose resource version did not change, by cause and by whether the handler enqueued work for them.",
              Labels.of(LabelNames.KIND, kind, LabelNames.HANDLER, handler, LabelNames.CAUSE, cause.label(), LabelNames.OUTCOME, outcome.label()),
              n);
        }
      }
      updates(out, cause, LabelNames.CHANGED, changedUpdates);
      updates(out, cause, LabelNames.UNCHANGED, noopUpdates);
      types[NotificationType.UPDATE.ordinal()] += changedUpdates + noopUpdates;
    }
    long echoes = ownWriteUpdates.sum();
    if (echoes > 0) {
      out.counter(
          "informer_own_write_updates",
          "Update notifications whose new object is the one a write from this process was answered with: echoes of its own writes.",
          Labels.of(LabelNames.KIND, kind, LabelNames.HANDLER, handler),
          echoes);
    }
    for (NotificationType type : TYPES) {
      if (types[type.ordinal()] > 0) {
        out.counter(
            "informer_notifications",
            "Handler calls made by informers, by handler method.",
            Labels.of(LabelNames.KIND, kind, LabelNames.HANDLER, handler, LabelNames.TYPE, type.label()),
            types[type.ordinal()]);
      }
    }
  }

  private void updates(Export out, UpdateCause cause, String resourceVersion, long n) {
    if (n > 0) {
      out.counter(
          "informer_updates",
          "Update notifications by cause (watch, resync, relist) and whether the resource version changed.",
          Labels.of(LabelNames.KIND, kind, LabelNames.HANDLER, handler, LabelNames.CAUSE, cause.label(), LabelNames.RESOURCE_VERSION, resourceVersion),
          n);
    }
  }

  static LongAdder[] adders(int n) {
    LongAdder[] adders = new LongAdder[n];
    for (int i = 0; i < n; i++) {
      adders[i] = new LongAdder();
    }
    return adders;
  }
}
