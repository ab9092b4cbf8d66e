package dev.resyncmeter.collector;

/**
 * What caused a workqueue add, and so the reconcile that takes the item (docs/measurement-model.md,
 * "Triggers of a reconcile"). Declared weakest first: while an item waits, its triggers merge into
 * the strongest.
 */
public enum Trigger implements LabelValue {
  RESYNC_NOOP,
  RELIST_NOOP,
  WATCH_NOOP,
  PERIODIC,
  REQUEUE,
  OTHER,
  /**
   * Work whose add the agent did not see: it waited in a queue, or its timer was set, before the agent
   * was attached. Stronger than every trigger but {@code change}, so a no-op add merged into it never
   * claims a reconcile that was due for a reason unseen.
   */
  UNKNOWN,
  /**
   * An echo: an update whose new resourceVersion is the one a write from this process was answered
   * with, for that object ({@link OwnWrites}). Only a change by someone else outranks it.
   */
  OWN_WRITE,
  CHANGE;

  /** True for the triggers a ResourceVersion check would have skipped: the resync cost. */
  public boolean noop() {
    return this == RESYNC_NOOP || this == RELIST_NOOP || this == WATCH_NOOP;
  }

  /** The merged trigger of an item that waits with both; null stands for "none yet". */
  public static Trigger merge(Trigger a, Trigger b) {
    if (a == null) {
      return b;
    }
    if (b == null) {
      return a;
    }
    return a.ordinal() >= b.ordinal() ? a : b;
  }

  /** The trigger of an add made inside a handler call, from how the call was classified. */
  public static Trigger ofHandlerCall(NotificationType type, UpdateCause cause, boolean unchanged) {
    if (type != NotificationType.UPDATE || !unchanged || cause == null) {
      return CHANGE;
    }
    return switch (cause) {
      case RESYNC -> RESYNC_NOOP;
      case RELIST -> RELIST_NOOP;
      case WATCH -> WATCH_NOOP;
    };
  }
}
