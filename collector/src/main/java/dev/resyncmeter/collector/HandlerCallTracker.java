package dev.resyncmeter.collector;

/**
 * Tells whether a handler added work to a workqueue while it handled one notification. A handler
 * call and the queue adds it makes run on the same thread, so a per-thread scope is exact without
 * any lock. Calls nest only when a handler delegates to another; the outermost call owns the scope.
 */
public final class HandlerCallTracker {

  private static final ThreadLocal<Scope> SCOPE = ThreadLocal.withInitial(Scope::new);

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
  public static boolean begin() {
    Scope scope = SCOPE.get();
    if (scope.open) {
      return false;
    }
    scope.open = true;
    scope.queueAdds = 0;
    scope.trigger = Trigger.CHANGE;
    return true;
  }

  /** Sets the trigger that queue adds made during the open call carry (default {@code change}). */
  public static void classify(Trigger trigger) {
    Scope scope = SCOPE.get();
    if (scope.open) {
      scope.trigger = trigger;
    }
  }

  /** The trigger of a queue add made now on this thread, or null outside any handler call. */
  public static Trigger currentTrigger() {
    Scope scope = SCOPE.get();
    return scope.open ? scope.trigger : null;
  }

  /** A workqueue add call happened on this thread; counted only inside a handler call. */
  public static void queueAdded() {
    Scope scope = SCOPE.get();
    if (scope.open) {
      scope.queueAdds++;
    }
  }

  /** Closes the scope opened by {@link #begin()} and returns how many queue adds it saw. */
  public static int end() {
    Scope scope = SCOPE.get();
    scope.open = false;
    return scope.queueAdds;
  }

  private static final class Scope {
    boolean open;
    int queueAdds;
    Trigger trigger;
  }
}
