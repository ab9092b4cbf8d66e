package dev.resyncmeter.collector;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** Reconciles of one controller by the trigger of the item they took, and how they ended. */
public final class ControllerMetrics {

  /** controller-runtime's reconcile time buckets, 5 ms to 60 s. */
  static final Duration[] BUCKETS =
      seconds(0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75, 2.0,
          2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60);

  private final MeterRegistry registry;
  private final String controller;
  // Made on first use, so a controller shows only the triggers and results it has seen.
  private final Counter[][] reconciles = new Counter[Trigger.values().length][ReconcileResult.values().length];
  private final Timer[] durations = new Timer[Trigger.values().length];

  ControllerMetrics(MeterRegistry registry, String controller) {
    this.registry = registry;
    this.controller = controller;
  }

  public void reconciled(Trigger trigger, ReconcileResult result, long nanos) {
    Counter counter = reconciles[trigger.ordinal()][result.ordinal()];
    if (counter == null) {
      counter =
          Counter.builder("controller.reconcile")
              .description("Reconciles by the trigger of the item they reconciled and by result.")
              .tag("controller", controller)
              .tag("trigger", trigger.label())
              .tag("result", result.label())
              .register(registry);
      reconciles[trigger.ordinal()][result.ordinal()] = counter;
    }
    Timer timer = durations[trigger.ordinal()];
    if (timer == null) {
      timer =
          Timer.builder("controller.reconcile.duration")
              .description("Time spent in reconciles, by the trigger of the item they reconciled.")
              .tag("controller", controller)
              .tag("trigger", trigger.label())
              .serviceLevelObjectives(BUCKETS)
              .register(registry);
      durations[trigger.ordinal()] = timer;
    }
    counter.increment();
    timer.record(nanos, TimeUnit.NANOSECONDS);
  }

  private static Duration[] seconds(double... values) {
    Duration[] buckets = new Duration[values.length];
    for (int i = 0; i < values.length; i++) {
      buckets[i] = Duration.ofNanos(Math.round(values[i] * 1e9));
    }
    return buckets;
  }
}
