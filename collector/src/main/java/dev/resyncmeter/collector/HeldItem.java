package dev.resyncmeter.collector;

import java.util.List;

/**
 * The work item one thread took from a queue and has not finished, part of its {@link ThreadContext}:
 * the trigger it is processed for, and the clock pair it shares with its reconcile. The clock when the
 * item was taken serves as the reconcile's start, and the clock when the reconcile ended serves as the
 * work's end at done: each is read once and serves twice, because a clock read costs more than
 * everything else the agent does between them.
 */
public final class HeldItem {

  /** The tracker of the queue the item came from, compared by identity only. */
  private Object queue;
  private Object item;
  private Trigger trigger;
  /** Its slot among the items its queue processes. */
  private int slot = -1;
  private long since;
  private boolean sinceUnclaimed;
  private long reconcileEndedAt;
  private boolean reconcileEndUnclaimed;
  /** The worker asked for its item to come back (a rate-limited or delayed add of that item). */
  private boolean requeued;
  /**
   * The reconcile of the held item threw, as the instrumentation saw it where it cannot time the
   * reconcile itself (a controller built before the agent was attached).
   */
  private boolean reconcileThrew;
  /**
   * Updates not yet told echoes or not, for which the item was added as {@code own_write}: its
   * reconcile counts when they are told (null: none awaited).
   */
  private List<PendingEcho> awaitedEchoes;

  HeldItem() {}

  /**
   * This thread took {@code item} from {@code queue} at {@code at}, to process it for {@code trigger} in
   * {@code slot}. {@code unseen}: it was taken before the agent could see it, after the reconcile of the
   * item, whose failure is known already and is kept.
   */
  void took(Object queue, Object item, Trigger trigger, int slot, long at, boolean unseen) {
    this.queue = queue;
    this.item = item;
    this.trigger = trigger;
    this.slot = slot;
    since = at;
    sinceUnclaimed = true;
    reconcileEndUnclaimed = false;
    requeued = false;
    reconcileThrew = unseen && reconcileThrew;
    awaitedEchoes = null;
  }

  /** The item just taken waits on {@code echoes}, not all told yet: its reconcile's trigger follows them. */
  void awaitEchoes(List<PendingEcho> echoes) {
    awaitedEchoes = echoes;
  }

  /** The echoes the held item's reconcile waits for to be counted, or null. */
  public List<PendingEcho> awaitedEchoes() {
    return item == null ? null : awaitedEchoes;
  }

  /** Whether this thread holds {@code item}, taken from the queue of {@code queue} (its tracker). */
  public boolean holds(Object queue, Object item) {
    return this.queue == queue && this.item != null && (this.item == item || this.item.equals(item));
  }

  /** The item this thread holds, or null. */
  Object item() {
    return item;
  }

  /** The slot of the held item among those its queue processes. */
  int slot() {
    return slot;
  }

  /**
   * The worker is done with the held item: it is let go. Returns the clock at which its work ended:
   * the end of the reconcile that followed its take, else a fresh read.
   */
  long release() {
    long end = reconcileEndUnclaimed ? reconcileEndedAt : System.nanoTime();
    queue = null;
    item = null;
    trigger = null;
    slot = -1;
    reconcileEndUnclaimed = false;
    awaitedEchoes = null;
    return end;
  }

  /**
   * The clock at the start of a reconcile: the time its item was taken, for the first reconcile
   * after a get on this thread, else a fresh read.
   */
  public long reconcileStarted() {
    if (sinceUnclaimed && item != null) {
      sinceUnclaimed = false;
      return since;
    }
    return System.nanoTime();
  }

  /** The clock at the end of a reconcile; the done of the held item that follows reuses it. */
  public long reconcileEnded() {
    long now = System.nanoTime();
    if (item != null) {
      reconcileEndedAt = now;
      reconcileEndUnclaimed = true;
    }
    return now;
  }

  /** The worker asked for the held item to come back. */
  void requeue() {
    requeued = true;
  }

  /** Whether the worker asked for the item it holds to come back. */
  public boolean requeued() {
    return requeued;
  }

  /** The trigger of the work item this thread holds, or {@code other} when it holds none. */
  public Trigger trigger() {
    Trigger held = trigger;
    return held == null ? Trigger.OTHER : held;
  }

  /** The clock when this thread took the item it holds. */
  public long since() {
    return since;
  }

  /** The reconcile of the held item threw (seen where the agent cannot time that reconcile itself). */
  public void reconcileThrew() {
    reconcileThrew = true;
  }

  public boolean reconcileFailed() {
    return reconcileThrew;
  }
}
