package dev.resyncmeter.collector;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.function.ToDoubleFunction;

/** The client-go workqueue meters of one queue name, plus the adds by trigger. */
final class QueueMetrics {

  /** client-go's buckets: 10 exponential buckets from 10 ns, factor 10. */
  static final Duration[] BUCKETS = exponential(10, 10, 10);

  final Counter adds;
  final Counter retries;
  final Timer queueDuration;
  final Timer workDuration;
  private final MeterRegistry registry;
  private final String name;
  private final Counter[] triggerAdds = new Counter[Trigger.values().length];

  QueueMetrics(MeterRegistry registry, String name, QueueTracker tracker) {
    adds = Counter.builder("workqueue.adds").description("Total number of adds handled by workqueue").tag("name", name).register(registry);
    retries = Counter.builder("workqueue.retries").description("Total number of retries handled by workqueue").tag("name", name).register(registry);
    queueDuration =
        Timer.builder("workqueue.queue.duration")
            .description("How long in seconds an item stays in workqueue before being requested.")
            .tag("name", name)
            .serviceLevelObjectives(BUCKETS)
            .register(registry);
    workDuration =
        Timer.builder("workqueue.work.duration")
            .description("How long in seconds processing an item from workqueue takes.")
            .tag("name", name)
            .serviceLevelObjectives(BUCKETS)
            .register(registry);
    gauge(registry, "workqueue.depth", "Current depth of workqueue", name, tracker, QueueTracker::depth, null);
    gauge(
        registry,
        "workqueue.unfinished.work",
        "How many seconds of work has done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.",
        name,
        tracker,
        QueueTracker::unfinishedWorkSeconds,
        "seconds");
    gauge(
        registry,
        "workqueue.longest.running.processor",
        "How many seconds has the longest running processor for workqueue been running.",
        name,
        tracker,
        QueueTracker::longestRunningProcessorSeconds,
        "seconds");
    this.registry = registry;
    this.name = name;
  }

  void triggerAdd(Trigger trigger) {
    Counter counter = triggerAdds[trigger.ordinal()];
    if (counter == null) {
      counter =
          Counter.builder("workqueue.trigger.adds")
              .description("Every add call to the workqueue (deduplicated ones included), by what triggered it.")
              .tag("name", name)
              .tag("trigger", trigger.label())
              .register(registry);
      triggerAdds[trigger.ordinal()] = counter;
    }
    counter.increment();
  }

  private static void gauge(
      MeterRegistry registry, String meter, String help, String name, QueueTracker tracker, ToDoubleFunction<QueueTracker> value, String unit) {
    Gauge.builder(meter, tracker, value).description(help).tag("name", name).baseUnit(unit).strongReference(true).register(registry);
  }

  static Duration[] exponential(long startNanos, int factor, int count) {
    Duration[] buckets = new Duration[count];
    long nanos = startNanos;
    for (int i = 0; i < count; i++) {
      buckets[i] = Duration.ofNanos(nanos);
      nanos *= factor;
    }
    return buckets;
  }
}
