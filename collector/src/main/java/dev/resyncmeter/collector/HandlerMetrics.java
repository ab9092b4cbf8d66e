package dev.resyncmeter.collector;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The meters of one event handler on one informer ({@code kind}, {@code handler}). Counters are made
 * on first use, so a handler shows only the series it has fed; each lookup is an array read.
 */
public final class HandlerMetrics {

  private final MeterRegistry registry;
  private final String kind;
  private final String handler;

  private final Counter[] notifications = new Counter[NotificationType.values().length];
  // [cause][0 = changed, 1 = unchanged]
  private final Counter[][] updates = new Counter[UpdateCause.values().length][2];
  private final Counter[][] noops = new Counter[UpdateCause.values().length][NoopOutcome.values().length];
  private final AtomicReference<Gauge> resyncPeriodGauge = new AtomicReference<>();
  private volatile double resyncPeriodSeconds;

  HandlerMetrics(MeterRegistry registry, String kind, String handler) {
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
    Counter counter = notifications[type.ordinal()];
    if (counter == null) {
      counter =
          Counter.builder("informer.notifications")
              .description("Handler calls made by informers, by handler method.")
              .tag(Labels.KIND, kind)
              .tag(Labels.HANDLER, handler)
              .tag(Labels.TYPE, type.label())
              .register(registry);
      notifications[type.ordinal()] = counter;
    }
    counter.increment();
  }

  /**
   * One {@code onUpdate} call, with its cause and whether the resource version was unchanged; a no-op
   * update (unchanged) also counts under its outcome. Counts the notification too.
   */
  public void update(UpdateCause cause, boolean unchanged, NoopOutcome outcome) {
    notification(NotificationType.UPDATE);
    int rv = unchanged ? 1 : 0;
    Counter counter = updates[cause.ordinal()][rv];
    if (counter == null) {
      counter =
          Counter.builder("informer.updates")
              .description(
                  "Update notifications by cause (watch, resync, relist) and whether the resource version changed.")
              .tag(Labels.KIND, kind)
              .tag(Labels.HANDLER, handler)
              .tag(Labels.CAUSE, cause.label())
              .tag(Labels.RESOURCE_VERSION, unchanged ? Labels.UNCHANGED : Labels.CHANGED)
              .register(registry);
      updates[cause.ordinal()][rv] = counter;
    }
    counter.increment();
    if (unchanged) {
      noop(cause, outcome);
    }
  }

  private void noop(UpdateCause cause, NoopOutcome outcome) {
    Counter counter = noops[cause.ordinal()][outcome.ordinal()];
    if (counter == null) {
      counter =
          Counter.builder("informer.noop.updates")
              .description(
                  "Updates whose resource version did not change, by cause and by whether the handler enqueued work for them.")
              .tag(Labels.KIND, kind)
              .tag(Labels.HANDLER, handler)
              .tag(Labels.CAUSE, cause.label())
              .tag(Labels.OUTCOME, outcome.label())
              .register(registry);
      noops[cause.ordinal()][outcome.ordinal()] = counter;
    }
    counter.increment();
  }

  /** The resync period in effect for this handler, in milliseconds; 0 means resync is off. */
  public void resyncPeriodMillis(long millis) {
    resyncPeriodSeconds = millis / 1000.0;
    if (resyncPeriodGauge.get() == null) {
      Gauge gauge =
          Gauge.builder("informer.resync.period", this, h -> h.resyncPeriodSeconds)
              .description("The resync period in effect for the handler, in seconds; 0 when resync is off.")
              .baseUnit("seconds")
              .tag(Labels.KIND, kind)
              .tag(Labels.HANDLER, handler)
              .register(registry);
      resyncPeriodGauge.compareAndSet(null, gauge);
    }
  }
}
