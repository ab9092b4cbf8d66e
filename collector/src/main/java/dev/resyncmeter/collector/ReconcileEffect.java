package dev.resyncmeter.collector;

/**
 * What a reconcile's writes to the Kubernetes API changed: whether its work was waste or a repair.
 * {@code changed} also stands for "the agent cannot show that nothing changed", so waste is a lower
 * bound and a repair is never reported as waste.
 */
public enum ReconcileEffect {
  /** It sent no write request. */
  NONE("none"),
  /** It sent writes, and each was seen to change nothing (an error answer, or the same resourceVersion back). */
  UNCHANGED("unchanged"),
  /** At least one write changed an object, or was not seen to change nothing. */
  CHANGED("changed");

  /**
   * Cleared while an instrumentation of API requests is off (turned off by the user, or switched off):
   * a reconcile may then write through it unseen, so no reconcile can be shown to have changed nothing.
   */
  private static volatile boolean writesObservable = true;

  private final String label;

  ReconcileEffect(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }

  /** The effect of a reconcile that sent {@code writes} write requests, {@code changedNothing} of them seen to change nothing. */
  static ReconcileEffect of(int writes, int changedNothing) {
    if (!writesObservable) {
      return CHANGED;
    }
    if (writes == 0) {
      return NONE;
    }
    return changedNothing >= writes ? UNCHANGED : CHANGED;
  }

  /** An instrumentation of API requests is off: every reconcile's effect is {@code changed}, never waste. */
  public static void writesBecameUnobservable() {
    writesObservable = false;
  }

  /** Every instrumentation of API requests counts (the start of a JVM; a part switched off never counts again). */
  public static void writesBecameObservable() {
    writesObservable = true;
  }
}
