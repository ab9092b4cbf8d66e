package dev.resyncmeter.collector;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Follows the items of one workqueue from add to done: client-go's workqueue metrics, the trigger
 * of every add, the merged trigger of each waiting item, and the trigger of the item a worker holds.
 *
 * <p>The instrumentation reports {@link #added}, {@link #taken} and {@link #done} from inside the
 * queue's own lock (client-java's queue methods are synchronized), so for one queue they arrive in
 * the queue's order and this state needs no lock of its own. Waiting items are mirrored in a ring
 * in the queue's own FIFO order (the host appends and takes from the head), so the common path is
 * array writes: no per-item map entry, no allocation, at most one clock read per operation (done
 * reads none after a timed reconcile of its item: see {@link HeldItem#reconcileEnded}). Maps hold only
 * what must merge: the triggers of deduplicated adds of a waiting item, and items added again while
 * a worker processes them.
 *
 * <p>The host's lock is held while this runs, and its other workers wait for it (spinning first), so
 * what can run later does: a take on a controller's worker only pops the ring, decides the trigger
 * and claims a slot; its clock read and its queue wait are recorded at its reconcile's start (see
 * {@link HeldItem}). Durations go in per-worker rows, slot starts in chunks that never move.
 */
public final class QueueTracker {

  /** How an add was asked for. */
  public enum AddKind {
    PLAIN,
    DELAYED,
    RATE_LIMITED
  }

  /** The meters of a queue name, which this queue's counts join at its first count. */
  private final Function<String, QueueMetrics> metersOfName;
  private final Observability observability;
  private volatile String name;
  private volatile QueueMetrics meters;

  private final QueueCounts counts = new QueueCounts();
  private final DelayedAdds delayedAdds = new DelayedAdds();

  // The waiting items, in the queue's order. A null trigger: an item whose add was not seen.
  private Object[] ringItems = new Object[INITIAL_RING];
  private long[] ringAddedAt = new long[INITIAL_RING];
  private Trigger[] ringTriggers = new Trigger[INITIAL_RING];
  private int ringHead;
  private int ringSize;
  /** A power of two, as every capacity after it (it doubles): a position wraps with a mask, not a division. */
  private static final int INITIAL_RING = 16;
  /** A ring this large goes back to its initial size once empty: a burst does not stay in memory. */
  private static final int KEPT_RING = 1024;

  /** Triggers of deduplicated adds of a waiting item, merged (only those that can change its trigger). */
  private final Map<Object, Trigger> mergedWhileWaiting = new HashMap<>();
  /** Items that workers took unseen (see {@link #takenUnseen}) before another take passed them; one per such worker at most. */
  private final Map<Object, WaitingForDone> takenUnseen = new HashMap<>();
  /** Items added (as {@code own_write}) in handler calls on updates still waiting to be told echoes or not. */
  private final Map<Object, List<PendingEcho>> pendingEchoes = new HashMap<>();
  /** Items added while a worker processes them: the queue takes them in again at done. */
  private final Map<Object, WaitingForDone> addedWhileProcessed = new HashMap<>();

  QueueTracker(String name, Function<String, QueueMetrics> metersOfName, Observability observability) {
    this.name = name;
    this.metersOfName = metersOfName;
    this.observability = observability;
  }

  /** The tracker of {@code queue} if the thread of {@code context} used that queue last, else null: found without a map lookup. */
  public static QueueTracker lastUsed(ThreadContext context, Object queue) {
    return (QueueTracker) context.lastQueue().trackerOf(queue);
  }

  /** The thread of {@code context} uses {@code queue}, whose tracker is {@code tracker}. */
  public static void used(ThreadContext context, Object queue, QueueTracker tracker) {
    context.lastQueue().remember(queue, tracker);
  }

  /** Names the queue after its controller; only before its first count. */
  public void name(String controllerName) {
    this.name = controllerName;
  }

  public String name() {
    return name;
  }

  /** Joins the meters of its name at its first count, when the name is final. */
  private void bind() {
    if (meters == null) {
      synchronized (this) {
        if (meters == null) {
          QueueMetrics joined = metersOfName.apply(name);
          joined.join(counts);
          meters = joined;
        }
      }
    }
  }

  /** The queue was collected: its counts go on in its name's totals, its gauges stop. */
  public void retire() {
    QueueMetrics m = meters;
    if (m != null) {
      m.retire(counts);
    }
  }

  // ---- add calls -------------------------------------------------------------------------------

  /**
   * An add call starts on the thread of {@code context}. The outermost call of a nest (a rate-limited
   * add calls a delayed add, which calls a plain add) decides the trigger and counts it; inner calls
   * inherit it.
   */
  public Trigger addCallStarted(ThreadContext context, Object item, AddKind kind) {
    AddCall call = context.addCall();
    if (!call.enter()) {
      return call.trigger();
    }
    bind();
    if (kind == AddKind.PLAIN && call.firingDelayedAdd()) {
      // A delayed add firing: not a call of the application's, so not counted again.
      Trigger pending = delayedAdds.fired(item);
      Trigger trigger = pending == null ? Trigger.OTHER : pending;
      call.decided(trigger);
      return trigger;
    }
    Trigger trigger = triggerOf(context, item, kind);
    PendingEcho echo = context.handlerCall().pendingEcho();
    if (echo != null && kind != AddKind.PLAIN) {
      // a delayed add keeps the trigger it has when called: the echo is settled with what is known now
      trigger = echo.echoNow() ? Trigger.OWN_WRITE : Trigger.CHANGE;
      echo = null;
    }
    if (echo != null) {
      call.decided(trigger);
      echo.whenTold(isEcho -> counts.addCalledOutsideLock(isEcho ? Trigger.OWN_WRITE : Trigger.CHANGE, false)); // counted once told
    } else if (kind == AddKind.PLAIN) {
      call.decided(trigger);
      counts.plainAddCalled(trigger); // a plain add runs under the queue's lock
    } else {
      call.decided(trigger, delayedAdds, item);
      counts.addCalledOutsideLock(trigger, kind == AddKind.RATE_LIMITED);
    }
    return trigger;
  }

  private Trigger triggerOf(ThreadContext context, Object item, AddKind kind) {
    Trigger inHandler = context.handlerCall().trigger();
    if (inHandler != null) {
      return inHandler;
    }
    HeldItem held = context.held();
    if (kind != AddKind.PLAIN && held.holds(this, item)) {
      held.requeue();
      return Trigger.REQUEUE;
    }
    // the application's own add, unless an informer instrumentation is off: then a handler may have made it
    return observability.handlerCallsObservable() ? Trigger.OTHER : Trigger.UNKNOWN;
  }

  /**
   * The queue shut down: its delaying thread fires nothing more, so no pending trigger is needed.
   * Waiting items stay tracked: workers may still take them.
   */
  public void shutDown() {
    delayedAdds.shutDown();
  }

  // ---- queue state (called under the queue's lock) ---------------------------------------------

  /**
   * The plain add of the call on this thread ended. {@code dirtyGrew}: the queue accepted the item
   * (else it was waiting already, and the add only merges its trigger); {@code queueGrew}: it is
   * queued now (else a worker is processing it and the queue takes it in again at done).
   */
  public void added(ThreadContext context, Object item, boolean shuttingDown, boolean dirtyGrew, boolean queueGrew) {
    if (shuttingDown) {
      return;
    }
    bind();
    Trigger called = context.addCall().trigger();
    Trigger trigger = called == null ? Trigger.OTHER : called;
    PendingEcho echo = trigger == Trigger.OWN_WRITE ? context.handlerCall().pendingEcho() : null;
    if (echo != null) {
      pendingEchoes.computeIfAbsent(item, waiting -> new ArrayList<>(1)).add(echo);
    }
    if (!dirtyGrew) {
      merge(item, trigger);
      return;
    }
    counts.accepted();
    // Read under the lock: the item may be taken the moment the lock is released, and its queue wait
    // starts here. Nothing of the agent's runs between the caller's add() and the monitor's enter, so
    // an earlier read would need the caller instrumented, and a later one would miss fast takes.
    long now = System.nanoTime();
    if (queueGrew) {
      push(item, now, trigger);
    } else {
      addedWhileProcessed.put(item, new WaitingForDone(trigger, now));
    }
  }

  /** A deduplicated add: the waiting item keeps the strongest trigger of all its adds. */
  private void merge(Object item, Trigger trigger) {
    WaitingForDone afterDone = addedWhileProcessed.isEmpty() ? null : addedWhileProcessed.get(item);
    if (afterDone != null) {
      afterDone.trigger = Trigger.merge(afterDone.trigger, trigger);
    } else if (trigger != Trigger.RESYNC_NOOP) {
      // The weakest trigger never changes a merge: most deduplicated adds of a resync leave no entry.
      mergedWhileWaiting.merge(item, trigger, Trigger::merge);
    }
  }

  /**
   * {@code get()} returned {@code item} to a worker; {@code queuedAfter} items still wait. Returns the
   * trigger the item is processed for: the strongest it gathered while it waited.
   */
  public Trigger taken(ThreadContext context, Object item, int queuedAfter) {
    if (item == null) {
      return null; // a shut-down queue had nothing left
    }
    return take(context, item, queuedAfter, false);
  }

  /**
   * A worker that waited inside a {@code get()} begun before the agent was attached took {@code item}
   * there, unseen, and is seen now with {@code queuedNow} items waiting: the take is recorded as if it
   * had been seen, with the item's add as the time it was taken (such a worker was idle: it took the
   * item as it came).
   */
  public Trigger takenUnseen(ThreadContext context, Object item, int queuedNow) {
    return take(context, item, queuedNow, true);
  }

  private Trigger take(ThreadContext context, Object item, int queuedAfter, boolean unseen) {
    bind();
    HeldItem held = context.held();
    // Only what decides the item's trigger and slot runs here, under the queue's lock; on a
    // controller's worker the clock read and the records wait for its reconcile (see HeldItem).
    boolean clockNow = unseen || !held.takesForReconcile();
    long now = clockNow ? System.nanoTime() : 0;
    long takenAt = now;
    long addedAt = 0;
    boolean queueWaitUnknown = true;
    Trigger trigger = null;
    // The ring holds the tail of the queue whose adds were seen: while it is longer than what is left,
    // its head was taken, by this take or by an unseen one.
    while (ringSize > queuedAfter) {
      Object ringItem = ringItems[ringHead];
      Trigger ringTrigger = ringTriggers[ringHead];
      long itemAddedAt = this.ringAddedAt[ringHead];
      pop();
      if (ringTrigger != null) {
        counts.left();
      }
      if (ringItem == item || ringItem.equals(item)) {
        if (ringTrigger != null && !unseen) {
          queueWaitUnknown = false;
          addedAt = itemAddedAt;
        }
        trigger = ringTrigger;
        takenAt = unseen && ringTrigger != null ? itemAddedAt : now;
        break;
      }
      // taken by a worker the agent could not see yet: it claims it when it is seen
      takenUnseen.put(ringItem, new WaitingForDone(ringTrigger, itemAddedAt));
    }
    if (trigger == null && !takenUnseen.isEmpty()) {
      WaitingForDone earlier = takenUnseen.remove(item);
      if (earlier != null) {
        trigger = earlier.trigger;
        takenAt = unseen && earlier.trigger != null ? earlier.addedAt : now;
      }
    }
    if (trigger == null) {
      // Queued before this tracker saw its add (the agent was attached later): why, nobody knows.
      trigger = Trigger.UNKNOWN;
    }
    if (!mergedWhileWaiting.isEmpty()) {
      trigger = Trigger.merge(trigger, mergedWhileWaiting.remove(item));
    }
    List<PendingEcho> awaited = null;
    if (!pendingEchoes.isEmpty()) {
      List<PendingEcho> echoes = pendingEchoes.remove(item);
      awaited = trigger == Trigger.OWN_WRITE ? PendingEcho.unsettled(echoes) : null;
      trigger = awaited == null ? PendingEcho.settled(trigger, echoes) : trigger;
    }
    held.took(this, counts, item, trigger, counts.claimSlot(item), queueWaitUnknown, addedAt, unseen);
    if (clockNow) {
      held.takenAt(takenAt);
    }
    if (awaited != null) {
      held.awaitEchoes(awaited);
    }
    return trigger;
  }

  /** The worker is done with {@code item}; {@code requeued}: it was added while processed and waits again. */
  public void done(ThreadContext context, Object item, boolean requeued) {
    bind();
    HeldItem held = context.held();
    if (held.holds(this, item)) {
      int slot = held.slot();
      // Done follows the reconcile of the held item: the reconcile's end is the work's end.
      counts.finishProcessing(held.durationRow(), slot, held.release());
    } else {
      counts.finishProcessing(held.durationRow(), counts.processingSlotOf(item), System.nanoTime());
    }
    if (requeued) {
      WaitingForDone waiting = addedWhileProcessed.isEmpty() ? null : addedWhileProcessed.remove(item);
      if (waiting == null) {
        push(item, 0, null);
      } else {
        push(item, waiting.addedAt, waiting.trigger);
      }
    }
  }

  // ---- the ring of waiting items ------------------------------------------------------------------

  private void push(Object item, long addedAt, Trigger trigger) {
    if (ringSize == ringItems.length) {
      growRing();
    }
    int tail = (ringHead + ringSize) & (ringItems.length - 1);
    ringItems[tail] = item;
    ringAddedAt[tail] = addedAt;
    ringTriggers[tail] = trigger;
    ringSize++;
  }

  private void pop() {
    ringItems[ringHead] = null;
    ringTriggers[ringHead] = null;
    ringHead = (ringHead + 1) & (ringItems.length - 1);
    if (--ringSize == 0 && ringItems.length > KEPT_RING) {
      clearRing();
    }
  }

  private void clearRing() {
    ringItems = new Object[INITIAL_RING];
    ringAddedAt = new long[INITIAL_RING];
    ringTriggers = new Trigger[INITIAL_RING];
    ringHead = 0;
    ringSize = 0;
  }

  private void growRing() {
    int capacity = ringItems.length * 2;
    Object[] items = new Object[capacity];
    long[] addedAt = new long[capacity];
    Trigger[] triggers = new Trigger[capacity];
    for (int i = 0; i < ringSize; i++) {
      int from = (ringHead + i) & (ringItems.length - 1);
      items[i] = ringItems[from];
      addedAt[i] = ringAddedAt[from];
      triggers[i] = ringTriggers[from];
    }
    ringItems = items;
    ringAddedAt = addedAt;
    ringTriggers = triggers;
    ringHead = 0;
  }

  /** In-flight items the tracker keeps state for (for memory tests). */
  int trackedItems() {
    return ringSize + mergedWhileWaiting.size() + pendingEchoes.size() + addedWhileProcessed.size() + delayedAdds.size() + takenUnseen.size() + counts.processing();
  }

  private static final class WaitingForDone {
    Trigger trigger;
    final long addedAt;

    WaitingForDone(Trigger trigger, long addedAt) {
      this.trigger = trigger;
      this.addedAt = addedAt;
    }
  }
}
