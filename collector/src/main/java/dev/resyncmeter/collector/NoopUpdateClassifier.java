package dev.resyncmeter.collector;

/**
 * Classifies one {@code onUpdate(old, new)} call: its cause, whether its resource version changed,
 * and its outcome (docs/measurement-model.md, "Updates: cause and resource version" and
 * "Handler outcome"). Pure functions: the instrumentation supplies what it saw, this decides what it
 * means.
 */
public final class NoopUpdateClassifier {

  private NoopUpdateClassifier() {}

  /**
   * The cause of an update in libraries that mark replays with an {@code isSync} flag (client-java).
   *
   * @param isSync the informer distributed the update as a sync (resync or relist), not as a watch event
   * @param sameInstance old and new are the very same object
   */
  public static UpdateCause cause(boolean isSync, boolean sameInstance) {
    if (!isSync) {
      return UpdateCause.WATCH;
    }
    return sameInstance ? UpdateCause.RESYNC : UpdateCause.RELIST;
  }

  /**
   * Whether the resource version is unchanged: both known and equal. An object without a resource
   * version cannot be proven unchanged, so it counts as changed.
   */
  public static boolean resourceVersionUnchanged(String oldVersion, String newVersion) {
    return oldVersion != null && !oldVersion.isEmpty() && oldVersion.equals(newVersion);
  }

  /** The outcome of a no-op update, given whether the handler added to a queue during the call. */
  public static NoopOutcome outcome(boolean queueAddsObservable, boolean addedToQueue) {
    if (addedToQueue) {
      return NoopOutcome.ENQUEUED;
    }
    return queueAddsObservable ? NoopOutcome.DROPPED : NoopOutcome.UNKNOWN;
  }
}
