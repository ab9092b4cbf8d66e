package dev.resyncmeter.collector;

/**
 * What a reconcile's writes to the Kubernetes API changed: whether its work was waste or a repair.
 * {@code changed} also stands for "the agent cannot show that nothing changed", so waste is a lower
 * bound and a repair is never reported as waste.
 */
public enum ReconcileEffect implements LabelValue {
  /** It sent no write request. */
  NONE,
  /** It sent writes, and each was seen to change nothing (an error answer, or the same resourceVersion back). */
  UNCHANGED,
  /** At least one write changed an object, or was not seen to change nothing. */
  CHANGED;

  /** The effect of a reconcile that sent {@code writes} write requests, {@code changedNothing} of them seen to change nothing. */
  static ReconcileEffect of(int writes, int changedNothing) {
    if (writes == 0) {
      return NONE;
    }
    return changedNothing >= writes ? UNCHANGED : CHANGED;
  }
}
