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
  private final List<QueueCounts> live = new ArrayList<>();
  /** What queues of this name that were collected counted. */
  private final Totals retired = new Totals();

  QueueMetrics(String name) {
    this.name = name;
    this.labels = Labels.of("name", name);
  }

  synchronized void join(QueueCounts queue) {
    live.add(queue);
  }

  synchronized void retire(QueueCounts queue) {
    if (live.remove(queue)) {
      retired.add(queue);
    }
  }

  synchronized void export(Export out) {
    Totals totals = retired.copy();
    long depth = 0;
    double[] unfinishedAndLongest = new double[2];
    for (QueueCounts queue : live) {
      totals.add(queue);
      depth += queue.depth();
      queue.addProcessing(unfinishedAndLongest);
    }
    long adds = totals.adds;
    long retries = totals.retries;
    long[] triggerAdds = totals.triggerAdds;
    long[] queueDuration = totals.queueDuration;
    long[] workDuration = totals.workDuration;
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

  /** The counts of some queues of this name, added up. */
  private static final class Totals {
    long adds;
    long retries;
    long[] triggerAdds = new long[TRIGGERS.length];
    long[] queueDuration = QueueCounts.durationTotals();
    long[] workDuration = QueueCounts.durationTotals();

    void add(QueueCounts queue) {
      adds += queue.adds();
      retries += queue.retries();
      for (Trigger trigger : TRIGGERS) {
        triggerAdds[trigger.ordinal()] += queue.triggerAdds(trigger);
      }
      queue.addDurations(queueDuration, workDuration);
    }

    Totals copy() {
      Totals copy = new Totals();
      copy.adds = adds;
      copy.retries = retries;
      copy.triggerAdds = triggerAdds.clone();
      copy.queueDuration = queueDuration.clone();
      copy.workDuration = workDuration.clone();
      return copy;
    }
  }
}
