package dev.resyncmeter.collector;

/**
 * The workqueue add call in progress on one thread, part of its {@link ThreadContext}. Calls nest (a
 * rate-limited add calls a delayed add, which calls a plain add): the outermost decides the trigger,
 * inner calls inherit it. A delayed add also keeps its item and its queue's {@link DelayedAdds}, for
 * the trigger it leaves with the queue until it fires.
 */
public final class AddCall {

  private int depth;
  private Trigger trigger;
  /** Of a delayed or rate-limited add: its queue's pending triggers, its item, and what it recorded there. */
  private DelayedAdds delayed;
  private Object item;
  private Trigger pending;
  private Trigger pendingBefore;
  /** This thread fires a delaying queue's delayed adds. */
  private boolean firesDelayedAdds;

  AddCall() {}

  /** An add call starts: true for the outermost call of a nest, which decides the trigger. */
  boolean enter() {
    return depth++ == 0;
  }

  /** The trigger of the call in progress (null: none decided). */
  Trigger trigger() {
    return trigger;
  }

  /** The outermost call, a plain add, has {@code trigger}. */
  void decided(Trigger trigger) {
    this.trigger = trigger;
  }

  /** The outermost call, a delayed or rate-limited add of {@code item} to the queue of {@code delayed}, has {@code trigger}. */
  void decided(Trigger trigger, DelayedAdds delayed, Object item) {
    this.trigger = trigger;
    this.delayed = delayed;
    this.item = item;
  }

  /** The add call returned. */
  public void finished() {
    if (depth == 0) {
      return; // its start was not recorded (the instrumentation was off): nothing to close
    }
    if (--depth > 0) {
      return;
    }
    delayed = null;
    item = null;
    pending = null;
  }

  /**
   * The delayed add of this call is being handed to the queue's delaying thread, which may fire it at
   * once: its trigger is recorded now. A delayed add the queue drops before this (it is shut down) or
   * that needs no wait (no delay) leaves nothing behind.
   */
  public void delayedAddWaiting() {
    if (depth > 0 && delayed != null) {
      pendingBefore = delayed.pendingFor(item);
      pending = delayed.record(item, trigger);
    }
  }

  /** The queue refused the delayed add of {@link #delayedAddWaiting} (its buffer was full): it never fires. */
  public void delayedAddRefused() {
    if (depth > 0 && delayed != null && pending != null) {
      delayed.forget(item, pending, pendingBefore);
      pending = null;
    }
  }

  /** Marks this thread as the one that fires a delaying queue's delayed adds. */
  public void firesDelayedAdds() {
    firesDelayedAdds = true;
  }

  /** Whether a plain add on this thread is a delayed add firing (not a call of the application's). */
  boolean firingDelayedAdd() {
    return firesDelayedAdds;
  }
}
