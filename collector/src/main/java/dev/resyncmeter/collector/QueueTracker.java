package dev.resyncmeter.collector;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Follows the items of one workqueue from add to done: client-go's workqueue metrics, the trigger
 * of every add, the merged trigger of each waiting item, and the trigger of the item a worker holds.
 *
 * <p>The instrumentation reports {@link #added}, {@link #taken} and {@link #done} from inside the
 * queue's own lock (client-java's queue methods are synchronized), so for one queue they arrive in
 * the queue's order and this state needs no lock of its own. Waiting items are mirrored in a ring
 * in the queue's own FIFO order (the host appends and takes from the head), so the common path is
 * array writes: no per-item map entry, no allocation, at most one clock read per operation (done
 * reads none after a timed reconcile of its item: see {@link ThreadContext#reconcileEnded}). Maps hold only
 * what must merge: the triggers of deduplicated adds of a waiting item, and items added again while
 * a worker processes them.
 */
public final class QueueTracker {

  /** How an add was asked for. */
  public enum AddKind {
    PLAIN,
    DELAYED,
    RATE_LIMITED
  }

  private static final Trigger[] TRIGGERS = Trigger.values();

  // Cells written under the queue's lock (see Cells).
  static final int ADDS = 0;
  static final int DEPTH = 1;
  /** Then one cell per trigger: plain add calls made outside any other add call. */
  static final int TRIGGER_ADDS = 2;

  private final ResyncMetrics registry;
  private volatile String name;
  private volatile QueueMetrics meters;

  final long[] cells = new long[TRIGGER_ADDS + TRIGGERS.length];
  /** Delayed and rate-limited add calls by trigger: made outside the queue's lock. */
  final LongAdder[] triggerAddsOutsideLock = HandlerMetrics.adders(TRIGGERS.length);
  final LongAdder retries = new LongAdder();
  final SerialHistogram queueDuration = new SerialHistogram(Buckets.CLIENT_GO_WORKQUEUE);
  final SerialHistogram workDuration = new SerialHistogram(Buckets.CLIENT_GO_WORKQUEUE);

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
  /** Items added while a worker processes them: the queue takes them in again at done. */
  private final Map<Object, WaitingForDone> addedWhileProcessed = new HashMap<>();

  // Items being processed: one slot each, its start time read by the gauges (0: a free slot).
  private Object[] processingItems = new Object[4];
  private volatile long[] processingStartedAt = new long[4];

  /**
   * Triggers of delayed adds that the queue accepted and has not fired yet: the later add keeps the
   * trigger it was given. An entry lives only while the queue holds the delayed add.
   */
  private final Map<Object, Trigger> pendingDelayed = new ConcurrentHashMap<>();
  private volatile boolean shutDown;

  QueueTracker(ResyncMetrics registry, String name) {
    this.registry = registry;
    this.name = name;
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
          meters = registry.queueMetrics(name, this);
        }
      }
    }
  }

  /** The queue was collected: its counts go on in its name's totals, its gauges stop. */
  public void retire() {
    QueueMetrics m = meters;
    if (m != null) {
      m.retire(this);
    }
  }

  // ---- add calls -------------------------------------------------------------------------------

  /**
   * An add call starts on this thread. The outermost call of a nest (a rate-limited add calls a
   * delayed add, which calls a plain add) decides the trigger and counts it; inner calls inherit it.
   */
  public Trigger addCallStarted(ThreadContext context, Object item, AddKind kind) {
    if (context.addDepth++ > 0) {
      return context.addTrigger;
    }
    bind();
    if (kind == AddKind.PLAIN && context.firesDelayedAdds) {
      // A delayed add firing: not a call of the application's, so not counted again.
      Trigger pending = pendingDelayed.isEmpty() ? null : pendingDelayed.remove(item);
      context.addTrigger = pending == null ? Trigger.OTHER : pending;
      return context.addTrigger;
    }
    Trigger trigger = triggerOf(context, item, kind);
    context.addTrigger = trigger;
    if (kind == AddKind.PLAIN) {
      Cells.add(cells, TRIGGER_ADDS + trigger.ordinal(), 1); // a plain add runs under the queue's lock
    } else {
      context.addTracker = this;
      context.addItem = item;
      triggerAddsOutsideLock[trigger.ordinal()].increment();
      if (kind == AddKind.RATE_LIMITED) {
        retries.increment();
      }
    }
    return trigger;
  }

  /** The add call of {@link #addCallStarted} returned. */
  public static void addCallFinished(ThreadContext context) {
    if (context.addDepth == 0) {
      return; // its start was not recorded (the instrumentation was off): nothing to close
    }
    if (--context.addDepth > 0) {
      return;
    }
    context.addTracker = null;
    context.addItem = null;
    context.addPending = null;
  }

  private Trigger triggerOf(ThreadContext context, Object item, AddKind kind) {
    Trigger inHandler = HandlerCallTracker.currentTrigger(context);
    if (inHandler != null) {
      return inHandler;
    }
    if (kind != AddKind.PLAIN && context.heldTracker == this && context.heldItem != null && context.heldItem.equals(item)) {
      context.heldRequeued = true;
      return Trigger.REQUEUE;
    }
    // the application's own add, unless an informer instrumentation is off: then a handler may have made it
    return HandlerCallTracker.handlerCallsObservable() ? Trigger.OTHER : Trigger.UNKNOWN;
  }

  /**
   * The delayed add called on this thread is being handed to the queue's delaying thread, which may
   * fire it at once: its trigger is recorded now. A delayed add the queue drops before this (it is
   * shut down) or that needs no wait (no delay) leaves nothing behind.
   */
  public static void delayedAddWaiting(ThreadContext context) {
    if (context.addDepth > 0 && context.addTracker != null) {
      context.addTracker.recordPending(context);
    }
  }

  /** The queue refused the delayed add of {@link #delayedAddWaiting} (its buffer was full): it never fires. */
  public static void delayedAddRefused(ThreadContext context) {
    if (context.addDepth > 0 && context.addTracker != null && context.addPending != null) {
      context.addTracker.forgetPending(context.addItem, context.addPending, context.addPendingBefore);
      context.addPending = null;
    }
  }

  private void recordPending(ThreadContext context) {
    context.addPendingBefore = pendingDelayed.get(context.addItem);
    context.addPending = pendingDelayed.merge(context.addItem, context.addTrigger, Trigger::merge);
    if (shutDown) {
      // Shut down while the add was on its way: the delaying thread has stopped, nothing will fire.
      forgetPending(context.addItem, context.addPending, null);
      context.addPending = null;
    }
  }

  /** Takes back a recorded trigger unless the add fired meanwhile (then it is gone already). */
  private void forgetPending(Object item, Trigger recorded, Trigger before) {
    if (before == null) {
      pendingDelayed.remove(item, recorded);
    } else {
      pendingDelayed.replace(item, recorded, before);
    }
  }

  /**
   * The queue shut down: its delaying thread fires nothing more, so no pending trigger is needed.
   * Waiting items stay tracked: workers may still take them.
   */
  public void shutDown() {
    shutDown = true;
    pendingDelayed.clear();
  }

  /** Marks this thread as the one that fires a delaying queue's delayed adds. */
  public static void firesDelayedAdds(ThreadContext context) {
    context.firesDelayedAdds = true;
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
    Trigger trigger = context.addTrigger == null ? Trigger.OTHER : context.addTrigger;
    if (!dirtyGrew) {
      merge(item, trigger);
      return;
    }
    Cells.add(cells, ADDS, 1);
    Cells.add(cells, DEPTH, 1);
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
    long now = System.nanoTime();
    long takenAt = now;
    Trigger trigger = null;
    // The ring holds the tail of the queue whose adds were seen: while it is longer than what is left,
    // its head was taken, by this take or by an unseen one.
    while (ringSize > queuedAfter) {
      Object ringItem = ringItems[ringHead];
      Trigger ringTrigger = ringTriggers[ringHead];
      long addedAt = ringAddedAt[ringHead];
      pop();
      if (ringTrigger != null) {
        Cells.add(cells, DEPTH, -1);
      }
      if (ringItem == item || ringItem.equals(item)) {
        if (ringTrigger != null && !unseen) {
          queueDuration.record(now - addedAt);
        }
        trigger = ringTrigger;
        takenAt = unseen && ringTrigger != null ? addedAt : now;
        break;
      }
      // taken by a worker the agent could not see yet: it claims it when it is seen
      takenUnseen.put(ringItem, new WaitingForDone(ringTrigger, addedAt));
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
    context.heldTracker = this;
    context.heldItem = item;
    context.heldTrigger = trigger;
    context.heldSlot = startProcessing(item, takenAt);
    // seen late, after the reconcile of the item: what it did is known already
    boolean threw = context.heldReconcileThrew;
    context.took(takenAt);
    context.heldReconcileThrew = unseen && threw;
    return trigger;
  }

  /** The worker is done with {@code item}; {@code requeued}: it was added while processed and waits again. */
  public void done(ThreadContext context, Object item, boolean requeued) {
    bind();
    boolean held = context.heldTracker == this && context.heldItem != null && (context.heldItem == item || context.heldItem.equals(item));
    // Done follows the reconcile of the held item: the reconcile's end is the work's end.
    long now = held && context.reconcileEndUnclaimed ? context.reconcileEndedAt : System.nanoTime();
    int slot = held ? context.heldSlot : processingSlotOf(item);
    if (held) {
      context.heldTracker = null;
      context.heldItem = null;
      context.heldTrigger = null;
      context.heldSlot = -1;
      context.reconcileEndUnclaimed = false;
    }
    if (slot >= 0 && processingItems[slot] != null) {
      long[] startedAt = processingStartedAt;
      workDuration.record(now - startedAt[slot]);
      processingItems[slot] = null;
      Cells.set(startedAt, slot, 0);
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

  // ---- the ring of waiting items and the slots of items in process -------------------------------

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

  private int startProcessing(Object item, long now) {
    Object[] items = processingItems;
    for (int i = 0; i < items.length; i++) {
      if (items[i] == null) {
        items[i] = item;
        Cells.set(processingStartedAt, i, now);
        return i;
      }
    }
    int slot = items.length;
    processingItems = java.util.Arrays.copyOf(items, slot * 2);
    long[] startedAt = java.util.Arrays.copyOf(processingStartedAt, slot * 2);
    startedAt[slot] = now;
    processingItems[slot] = item;
    processingStartedAt = startedAt;
    return slot;
  }

  private int processingSlotOf(Object item) {
    Object[] items = processingItems;
    for (int i = 0; i < items.length; i++) {
      if (items[i] != null && items[i].equals(item)) {
        return i;
      }
    }
    return -1;
  }

  // ---- gauges (read by a scrape, without the queue's lock) ---------------------------------------

  long depth() {
    return Cells.read(cells, DEPTH);
  }

  /** Seconds of work in process now, summed (negative: none), and the longest of them. */
  void addProcessing(double[] unfinishedAndLongest) {
    long now = System.nanoTime();
    long[] startedAt = processingStartedAt;
    for (int i = 0; i < startedAt.length; i++) {
      long started = Cells.read(startedAt, i);
      if (started != 0) {
        double seconds = (now - started) / 1e9;
        unfinishedAndLongest[0] += seconds;
        unfinishedAndLongest[1] = Math.max(unfinishedAndLongest[1], seconds);
      }
    }
  }

  /** In-flight items the tracker keeps state for (for memory tests). */
  int trackedItems() {
    int processing = 0;
    for (Object item : processingItems) {
      if (item != null) {
        processing++;
      }
    }
    return ringSize + mergedWhileWaiting.size() + addedWhileProcessed.size() + pendingDelayed.size() + takenUnseen.size() + processing;
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
