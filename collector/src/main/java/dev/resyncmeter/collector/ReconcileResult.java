package dev.resyncmeter.collector;

/** How a reconcile ended. The label value is the Prometheus {@code result}. */
public enum ReconcileResult implements LabelValue {
  SUCCESS,
  /** The reconciler asked to be called again for the item. */
  REQUEUE,
  /** The reconciler threw. */
  ERROR
}
