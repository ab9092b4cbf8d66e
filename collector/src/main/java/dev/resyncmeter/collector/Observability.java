package dev.resyncmeter.collector;

/**
 * What the instrumentation feeding one collector can see now. Some counts are exact only while
 * another part of the instrumentation counts (a no-op update's outcome needs every queue add seen);
 * while that part is off, they say {@code unknown} (or {@code changed}) instead of something exact
 * but wrong. The parts tell this object; the counts ask it.
 */
public final class Observability {

  /** Set once an instrumentation can see queue adds; until then outcomes are {@code unknown}. */
  private volatile boolean queueAdds;

  /**
   * Cleared while an informer instrumentation is off (turned off by the user, or switched off): a
   * queue add outside every handler call the agent sees may then come from one it does not see.
   */
  private volatile boolean handlerCalls = true;

  /**
   * Cleared while an instrumentation of API requests is off: a reconcile may then write through it
   * unseen, so no reconcile can be shown to have changed nothing.
   */
  private volatile boolean writes = true;

  /** The workqueue instrumentation is active: a handler that adds nothing really dropped the update. */
  public void queueAddsBecameObservable() {
    queueAdds = true;
  }

  /** The workqueue instrumentation stopped: outcomes go back to {@code unknown}. */
  public void queueAddsBecameUnobservable() {
    queueAdds = false;
  }

  public boolean queueAddsObservable() {
    return queueAdds;
  }

  /** An informer instrumentation is off: an add outside a seen handler call is {@code unknown}, not {@code other}. */
  public void handlerCallsBecameUnobservable() {
    handlerCalls = false;
  }

  /** Whether every handler call that could add to a queue is seen: then an add outside one is the application's own. */
  public boolean handlerCallsObservable() {
    return handlerCalls;
  }

  /** An instrumentation of API requests is off: every reconcile's effect is {@code changed}, never waste. */
  public void writesBecameUnobservable() {
    writes = false;
  }

  /** Whether every write a reconcile sends is seen. */
  public boolean writesObservable() {
    return writes;
  }
}
