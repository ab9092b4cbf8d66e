package dev.resyncmeter.collector;

/** What a handler did with a no-op update. The label value is the Prometheus {@code outcome}. */
public enum NoopOutcome {
  /** The handler added work to a workqueue during the call. */
  ENQUEUED("enqueued"),
  /** The handler added nothing to any observed workqueue: it filters no-ops already. */
  DROPPED("dropped"),
  /** No workqueue of a known library is instrumented, so a queue add could not have been seen. */
  UNKNOWN("unknown");

  private final String label;

  NoopOutcome(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }
}
