package dev.resyncmeter.collector;

/** How a reconcile ended. The label value is the Prometheus {@code result}. */
public enum ReconcileResult {
  SUCCESS("success"),
  /** The reconciler asked to be called again for the item. */
  REQUEUE("requeue"),
  /** The reconciler threw. */
  ERROR("error");

  private final String label;

  ReconcileResult(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }
}
