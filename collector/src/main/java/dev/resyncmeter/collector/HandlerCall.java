package dev.resyncmeter.collector;

/**
 * The handler call in progress on one thread, part of its {@link ThreadContext}: whether the handler
 * added work to a workqueue while it handled one notification. A handler call and the queue adds it
 * makes run on the same thread, so this per-thread scope is exact without any lock. Calls nest only
 * when a handler delegates to another; the outermost call owns the scope.
 */
public final class HandlerCall {

  private boolean open;
  private int queueAdds;
  private Trigger trigger;

  HandlerCall() {}

  /** Opens the scope of a handler call; false when one is open already (nested). */
  public boolean begin() {
    if (open) {
      return false;
    }
    open = true;
    queueAdds = 0;
    trigger = Trigger.CHANGE;
    return true;
  }

  /** Sets the trigger that queue adds made during the open call carry (default {@code change}). */
  public void classify(Trigger trigger) {
    if (open) {
      this.trigger = trigger;
    }
  }

  /** The trigger of a queue add made now on this thread, or null outside any handler call. */
  public Trigger trigger() {
    return open ? trigger : null;
  }

  /** A workqueue add call happened on this thread; counted only inside a handler call. */
  public void queueAdded() {
    if (open) {
      queueAdds++;
    }
  }

  /** Closes the scope opened by {@link #begin} and returns how many queue adds it saw. */
  public int end() {
    open = false;
    return queueAdds;
  }
}
