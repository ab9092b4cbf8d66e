package dev.resyncmeter.collector;

/** What a handler did with a no-op update. The label value is the Prometheus {@code outcome}. */
public enum NoopOutcome implements LabelValue {
  /** The handler added work to a workqueue during the call. */
  ENQUEUED,
  /** The handler added nothing to any observed workqueue: it filters no-ops already. */
  DROPPED,
  /** No workqueue of a known library is instrumented, so a queue add could not have been seen. */
  UNKNOWN
}
