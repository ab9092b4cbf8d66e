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

  /**
   * Cleared while an informer instrumentation is off (turned off by the user, or switched off): a
   * queue add outside every handler call the agent sees may then come from one it does not see.
   */
  private static volatile boolean handlerCallsObservable = true;

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

  /** An informer instrumentation is off: an add outside a seen handler call is {@code unknown}, not {@code other}. */
  public static void handlerCallsBecameUnobservable() {
    handlerCallsObservable = false;
  }

  /** Every informer instrumentation counts (the start of a JVM; a part switched off never counts again). */
  public static void handlerCallsBecameObservable() {
    handlerCallsObservable = true;
  }

  /** Whether every handler call that could add to a queue is seen: then an add outside one is the application's own. */
  public static boolean handlerCallsObservable() {
    return handlerCallsObservable;
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
