package dev.resyncmeter.collector;

import io.prometheus.metrics.model.snapshots.Labels;
import java.util.ArrayList;
import java.util.List;

/**
 * The client-go workqueue metrics of one queue name, plus the adds by trigger: the counts of its live
 * queues' trackers, read at scrape time, and what queues of this name that were collected counted.
 * Gauges cover the live queues only.
 */
final class QueueMetrics {

  private static final Trigger[] TRIGGERS = Trigger.values();

  private final String name;
  private final Labels labels;
  private final List<QueueTracker> live = new ArrayList<>();
  // Totals of retired trackers.
  private long retiredAdds;
  private long retiredRetries;
  private final long[] retiredTriggerAdds = new long[TRIGGERS.length];
  private final long[] retiredQueueDuration = SerialHistogram.totals(Buckets.CLIENT_GO_WORKQUEUE);
  private final long[] retiredWorkDuration = SerialHistogram.totals(Buckets.CLIENT_GO_WORKQUEUE);

  QueueMetrics(String name) {
    this.name = name;
    this.labels = Labels.of("name", name);
  }

  synchronized void join(QueueTracker tracker) {
    live.add(tracker);
  }

  synchronized void retire(QueueTracker tracker) {
    if (!live.remove(tracker)) {
      return;
    }
    retiredAdds += Cells.read(tracker.cells, QueueTracker.ADDS);
    retiredRetries += tracker.retries.sum();
    for (Trigger trigger : TRIGGERS) {
      retiredTriggerAdds[trigger.ordinal()] += triggerAdds(tracker, trigger);
    }
    tracker.queueDuration.addTo(retiredQueueDuration);
    tracker.workDuration.addTo(retiredWorkDuration);
  }

  private static long triggerAdds(QueueTracker tracker, Trigger trigger) {
    return Cells.read(tracker.cells, QueueTracker.TRIGGER_ADDS + trigger.ordinal()) + tracker.triggerAddsOutsideLock[trigger.ordinal()].sum();
  }

  synchronized void export(Export out) {
    long adds = retiredAdds;
    long retries = retiredRetries;
    long depth = 0;
    long[] triggerAdds = retiredTriggerAdds.clone();
    long[] queueDuration = retiredQueueDuration.clone();
    long[] workDuration = retiredWorkDuration.clone();
    double[] unfinishedAndLongest = new double[2];
    for (QueueTracker tracker : live) {
      adds += Cells.read(tracker.cells, QueueTracker.ADDS);
      retries += tracker.retries.sum();
      depth += tracker.depth();
      for (Trigger trigger : TRIGGERS) {
        triggerAdds[trigger.ordinal()] += triggerAdds(tracker, trigger);
      }
      tracker.queueDuration.addTo(queueDuration);
      tracker.workDuration.addTo(workDuration);
      tracker.addProcessing(unfinishedAndLongest);
    }
    out.counter("workqueue_adds", "Total number of adds handled by workqueue", labels, adds);
    out.counter("workqueue_retries", "Total number of retries handled by workqueue", labels, retries);
    out.gauge("workqueue_depth", "Current depth of workqueue", labels, depth);
    out.histogram(
        "workqueue_queue_duration_seconds",
        "How long in seconds an item stays in workqueue before being requested.",
        Buckets.CLIENT_GO_WORKQUEUE.dataPoint(labels, queueDuration));
    out.histogram(
        "workqueue_work_duration_seconds",
        "How long in seconds processing an item from workqueue takes.",
        Buckets.CLIENT_GO_WORKQUEUE.dataPoint(labels, workDuration));
    out.gauge(
        "workqueue_unfinished_work_seconds",
        "How many seconds of work has done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.",
        labels,
        unfinishedAndLongest[0]);
    out.gauge(
        "workqueue_longest_running_processor_seconds",
        "How many seconds has the longest running processor for workqueue been running.",
        labels,
        unfinishedAndLongest[1]);
    for (Trigger trigger : TRIGGERS) {
      if (triggerAdds[trigger.ordinal()] > 0) {
        out.counter(
            "workqueue_trigger_adds",
            "Every add call to the workqueue (deduplicated ones included), by what triggered it.",
            Labels.of("name", name, "trigger", trigger.label()),
            triggerAdds[trigger.ordinal()]);
      }
    }
  }
}
