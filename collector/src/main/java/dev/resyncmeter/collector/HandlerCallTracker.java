package dev.resyncmeter.collector;

/**
 * Tells whether a handler added work to a workqueue while it handled one notification. A handler
 * call and the queue adds it makes run on the same thread, so a per-thread scope (in the thread's
 * {@link ThreadContext}) is exact without any lock. Calls nest only when a handler delegates to
 * another; the outermost call owns the scope.
 */
public final class HandlerCallTracker {

  /** Set once an instrumentation can see queue adds; until then outcomes are {@code unknown}. */
  private static volatile boolean queueAddsObservable;

  private HandlerCallTracker() {}

  /** The workqueue instrumentation is active: a handler that adds nothing really dropped the update. */
  public static void queueAddsBecameObservable() {
    queueAddsObservable = true;
  }

  /** The workqueue instrumentation stopped: outcomes go back to {@code unknown}. */
  public static void queueAddsBecameUnobservable() {
    queueAddsObservable = false;
  }

  public static boolean queueAddsObservable() {
    return queueAddsObservable;
  }

  /** Opens the scope of a handler call on this thread; false when one is open already (nested). */
  public static boolean begin(ThreadContext context) {
    if (context.handlerCallOpen) {
      return false;
    }
    context.handlerCallOpen = true;
    context.handlerQueueAdds = 0;
    context.handlerTrigger = Trigger.CHANGE;
    return true;
  }

  /** Sets the trigger that queue adds made during the open call carry (default {@code change}). */
  public static void classify(ThreadContext context, Trigger trigger) {
    if (context.handlerCallOpen) {
      context.handlerTrigger = trigger;
    }
  }

  /** The trigger of a queue add made now on this thread, or null outside any handler call. */
  public static Trigger currentTrigger(ThreadContext context) {
    return context.handlerCallOpen ? context.handlerTrigger : null;
  }

  /** A workqueue add call happened on this thread; counted only inside a handler call. */
  public static void queueAdded(ThreadContext context) {
    if (context.handlerCallOpen) {
      context.handlerQueueAdds++;
    }
  }

  /** Closes the scope opened by {@link #begin} and returns how many queue adds it saw. */
  public static int end(ThreadContext context) {
    context.handlerCallOpen = false;
    return context.handlerQueueAdds;
  }
}
