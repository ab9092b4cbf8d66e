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
  /** The update handled is an echo if a write in flight is answered with its version; null otherwise. */
  private PendingEcho pendingEcho;

  HandlerCall() {}

  /** Opens the scope of a handler call; false when one is open already (nested). */
  public boolean begin() {
    if (open) {
      return false;
    }
    open = true;
    queueAdds = 0;
    trigger = Trigger.CHANGE;
    pendingEcho = null;
    return true;
  }

  /** Sets the trigger that queue adds made during the open call carry (default {@code change}). */
  public void classify(Trigger trigger) {
    if (open) {
      this.trigger = trigger;
    }
  }

  /** The open call's update waits for a write's answer to be told an echo ({@code own_write}) or not. */
  void classify(Trigger trigger, PendingEcho pendingEcho) {
    if (open) {
      this.trigger = trigger;
      this.pendingEcho = pendingEcho;
    }
  }

  /** The echo the open call's adds wait on, or null (settled, or no echo in question). */
  public PendingEcho pendingEcho() {
    return open ? pendingEcho : null;
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
    pendingEcho = null;
    return queueAdds;
  }
}
