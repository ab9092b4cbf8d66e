package dev.resyncmeter.collector;

import java.util.List;

/**
 * The work item one thread took from a queue and has not finished, part of its {@link ThreadContext}:
 * the trigger it is processed for, and the clock pair it shares with its reconcile. The clock when the
 * item was taken serves as the reconcile's start, and the clock when the reconcile ended serves as the
 * work's end at done: each is read once and serves twice, because a clock read costs more than
 * everything else the agent does between them.
 *
 * <p>A take runs under the queue's lock, which the other workers wait for. So on a controller's worker
 * (a thread whose timed reconcile followed its last take) the take reads no clock: the reconcile that
 * follows reads it at its start, outside the lock, and that read is the take's time too (between the
 * two the worker runs only the controller's loop). The item's queue wait and its work's start are
 * recorded then, in this thread's row ({@link #durationRow}). If no reconcile comes, the done of the
 * item (or this thread's next take) reads the clock instead.
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
  /** The take of the held item read no clock yet: {@link #clockTake} records it when one is read. */
  private boolean takeUnclocked;
  /** The counts of the queue of the unclocked take, and when its item was added ({@link #queueWaitUnknown}: not seen). */
  private QueueCounts unclockedCounts;
  private long unclockedAddedAt;
  private boolean queueWaitUnknown;
  /** A timed reconcile followed the last take on this thread: it is a controller's worker. */
  private boolean reconciledAfterTake;
  /** This thread's row in the duration histograms of the queues it takes from. */
  private final LastRow durationRow = new LastRow();
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
   * Whether a take on this thread may leave its clock read to the reconcile that follows: a timed
   * reconcile followed the thread's last take. A first take, and a take on a thread whose item is
   * processed without a timed reconcile (the application's own worker), read the clock at once.
   */
  boolean takesForReconcile() {
    return reconciledAfterTake;
  }

  /**
   * This thread took {@code item} from {@code queue} (its tracker, whose counts are {@code counts}),
   * to process it for {@code trigger} in {@code slot}; {@code addedAt}: when its add was seen, unless
   * {@code queueWaitUnknown}. {@code unseen}: it was taken before the agent could see it, after the
   * reconcile of the item, whose failure is known already and is kept. Its clock is told by {@link
   * #takenAt}, or read later when left unclocked.
   */
  void took(Object queue, QueueCounts counts, Object item, Trigger trigger, int slot, boolean queueWaitUnknown, long addedAt, boolean unseen) {
    if (takeUnclocked) {
      clockTake(System.nanoTime()); // the take before had neither reconcile nor done on this thread
    }
    this.queue = queue;
    this.item = item;
    this.trigger = trigger;
    this.slot = slot;
    unclockedCounts = counts;
    unclockedAddedAt = addedAt;
    this.queueWaitUnknown = queueWaitUnknown;
    takeUnclocked = true;
    sinceUnclaimed = true;
    reconciledAfterTake = false;
    reconcileEndUnclaimed = false;
    requeued = false;
    reconcileThrew = unseen && reconcileThrew;
    awaitedEchoes = null;
  }

  /** The take just told to {@link #took} happened at {@code at}. */
  void takenAt(long at) {
    clockTake(at);
  }

  /** The held item's take is timed at {@code now}: its queue wait and its work's start are recorded. */
  private void clockTake(long now) {
    takeUnclocked = false;
    since = now;
    unclockedCounts.started(durationRow, slot, queueWaitUnknown, unclockedAddedAt, now);
    unclockedCounts = null;
  }

  /** This thread's row in the duration histograms. */
  LastRow durationRow() {
    return durationRow;
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
    long end;
    if (takeUnclocked) {
      end = System.nanoTime(); // no reconcile came: its take is timed now, and it took no time to process
      clockTake(end);
    } else {
      end = reconcileEndUnclaimed ? reconcileEndedAt : System.nanoTime();
    }
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
   * after a get on this thread (read now if that take left it unread), else a fresh read.
   */
  public long reconcileStarted() {
    if (item != null) {
      reconciledAfterTake = true;
    }
    if (takeUnclocked) {
      long now = System.nanoTime();
      clockTake(now);
      sinceUnclaimed = false;
      return now;
    }
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
    if (takeUnclocked) {
      clockTake(System.nanoTime());
    }
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
