package dev.resyncmeter.collector;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Follows the items of one workqueue from add to done: client-go's workqueue metrics, the trigger
 * of every add, the merged trigger of each waiting item, and the trigger of the item a worker holds.
 *
 * <p>The instrumentation reports {@link #inserted}, {@link #taken} and {@link #done} from inside the
 * queue's own lock (client-java's queue methods are synchronized), so for one queue they arrive in
 * the queue's order. State is kept only for items that are queued or being processed.
 */
public final class QueueTracker {

  /** How an add was asked for. */
  public enum AddKind {
    PLAIN,
    DELAYED,
    RATE_LIMITED
  }

  private static final ThreadLocal<AddCall> ADD_CALL = ThreadLocal.withInitial(AddCall::new);
  private static final ThreadLocal<Boolean> DELAYED_ADDS_THREAD = new ThreadLocal<>();
  private static final ThreadLocal<WorkerItem> WORKER_ITEM = new ThreadLocal<>();

  private final ResyncMetrics registry;
  private volatile String name;
  private volatile QueueMetrics meters;
  private final Map<Object, ItemState> items = new ConcurrentHashMap<>();
  /**
   * Triggers of delayed adds that the queue accepted and has not fired yet: the later add keeps the
   * trigger it was given. An entry lives only while the queue holds the delayed add.
   */
  private final Map<Object, Trigger> pendingDelayed = new ConcurrentHashMap<>();
  private final AtomicLong depth = new AtomicLong();
  private volatile boolean shutDown;

  QueueTracker(ResyncMetrics registry, String name) {
    this.registry = registry;
    this.name = name;
  }

  /** Names the queue after its controller; only before its first meter is made. */
  public void name(String controllerName) {
    this.name = controllerName;
  }

  public String name() {
    return name;
  }

  private QueueMetrics meters() {
    QueueMetrics m = meters;
    if (m == null) {
      synchronized (this) {
        if (meters == null) {
          meters = registry.queueMetrics(name, this);
        }
        m = meters;
      }
    }
    return m;
  }

  // ---- add calls -------------------------------------------------------------------------------

  /**
   * An add call starts on this thread. The outermost call of a nest (a rate-limited add calls a
   * delayed add, which calls a plain add) decides the trigger and counts it; inner calls inherit it.
   */
  public Trigger addCallStarted(Object item, AddKind kind) {
    AddCall call = ADD_CALL.get();
    if (call.depth++ > 0) {
      return call.trigger;
    }
    if (kind == AddKind.PLAIN && Boolean.TRUE.equals(DELAYED_ADDS_THREAD.get())) {
      // A delayed add firing: not a call of the application's, so not counted again.
      Trigger pending = pendingDelayed.remove(item);
      call.trigger = pending == null ? Trigger.OTHER : pending;
      return call.trigger;
    }
    call.trigger = triggerOf(item, kind);
    if (kind != AddKind.PLAIN) {
      call.tracker = this;
      call.item = item;
    }
    meters().triggerAdd(call.trigger);
    if (kind == AddKind.RATE_LIMITED) {
      meters().retries.increment();
    }
    return call.trigger;
  }

  /** The add call of {@link #addCallStarted} returned. */
  public void addCallFinished() {
    AddCall call = ADD_CALL.get();
    if (call.depth == 0) {
      return; // its start was not recorded (the instrumentation was off): nothing to close
    }
    if (--call.depth > 0) {
      return;
    }
    call.tracker = null;
    call.item = null;
    call.pending = null;
  }

  /**
   * The delayed add called on this thread is being handed to the queue's delaying thread, which may
   * fire it at once: its trigger is recorded now. A delayed add the queue drops before this (it is
   * shut down) or that needs no wait (no delay) leaves nothing behind.
   */
  public static void delayedAddWaiting() {
    AddCall call = ADD_CALL.get();
    if (call.depth > 0 && call.tracker != null) {
      call.tracker.recordPending(call);
    }
  }

  /** The queue refused the delayed add of {@link #delayedAddWaiting} (its buffer was full): it never fires. */
  public static void delayedAddRefused() {
    AddCall call = ADD_CALL.get();
    if (call.depth > 0 && call.tracker != null && call.pending != null) {
      call.tracker.forgetPending(call.item, call.pending, call.pendingBefore);
      call.pending = null;
    }
  }

  private void recordPending(AddCall call) {
    call.pendingBefore = pendingDelayed.get(call.item);
    call.pending = pendingDelayed.merge(call.item, call.trigger, Trigger::merge);
    if (shutDown) {
      // Shut down while the add was on its way: the delaying thread has stopped, nothing will fire.
      forgetPending(call.item, call.pending, null);
      call.pending = null;
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

  private Trigger triggerOf(Object item, AddKind kind) {
    Trigger inHandler = HandlerCallTracker.currentTrigger();
    if (inHandler != null) {
      return inHandler;
    }
    WorkerItem held = WORKER_ITEM.get();
    if (kind != AddKind.PLAIN && held != null && held.queue == this && held.item.equals(item)) {
      return Trigger.REQUEUE;
    }
    return Trigger.OTHER;
  }

  /** Marks this thread as the one that fires a delaying queue's delayed adds. */
  public static void delayedAddsThread() {
    DELAYED_ADDS_THREAD.set(Boolean.TRUE);
  }

  // ---- queue state (called under the queue's lock) ---------------------------------------------

  /**
   * The queue accepts an add of {@code item}. A deduplicated add (the item waits already) merges its
   * trigger; any other counts as an add and starts the item's next trigger set.
   */
  public void inserted(Object item, Trigger trigger, boolean alreadyWaiting) {
    ItemState state = items.computeIfAbsent(item, k -> new ItemState());
    if (alreadyWaiting) {
      state.waiting = Trigger.merge(state.waiting, trigger);
      return;
    }
    meters().adds.increment();
    depth.incrementAndGet();
    state.waiting = trigger;
    if (state.addedAt == 0) {
      state.addedAt = System.nanoTime();
    }
  }

  /** A worker took {@code item}: it is processed for the trigger it gathered while it waited. */
  public Trigger taken(Object item) {
    ItemState state = items.computeIfAbsent(item, k -> new ItemState());
    long now = System.nanoTime();
    depth.decrementAndGet();
    if (state.addedAt != 0) {
      meters().queueDuration.record(now - state.addedAt, java.util.concurrent.TimeUnit.NANOSECONDS);
    }
    state.addedAt = 0;
    state.processing = state.waiting == null ? Trigger.OTHER : state.waiting;
    state.waiting = null;
    state.startedAt = now;
    WORKER_ITEM.set(new WorkerItem(this, item, state.processing));
    return state.processing;
  }

  /** The worker is done with {@code item}; {@code addedAgain}: it was re-added while processed. */
  public void done(Object item, boolean addedAgain) {
    ItemState state = items.get(item);
    WorkerItem held = WORKER_ITEM.get();
    if (held != null && held.queue == this && held.item.equals(item)) {
      WORKER_ITEM.remove();
    }
    if (state == null) {
      return;
    }
    if (state.startedAt != 0) {
      meters().workDuration.record(System.nanoTime() - state.startedAt, java.util.concurrent.TimeUnit.NANOSECONDS);
    }
    state.startedAt = 0;
    state.processing = null;
    if (!addedAgain) {
      items.remove(item);
    }
  }

  /** The item the current thread took from a queue and has not finished, or null. */
  public static WorkerItem currentWorkerItem() {
    return WORKER_ITEM.get();
  }

  // ---- gauges ----------------------------------------------------------------------------------

  double depth() {
    return depth.get();
  }

  double unfinishedWorkSeconds() {
    long now = System.nanoTime();
    long total = 0;
    for (ItemState state : items.values()) {
      long started = state.startedAt;
      if (started != 0) {
        total += now - started;
      }
    }
    return total / 1e9;
  }

  double longestRunningProcessorSeconds() {
    long now = System.nanoTime();
    long longest = 0;
    for (ItemState state : items.values()) {
      long started = state.startedAt;
      if (started != 0) {
        longest = Math.max(longest, now - started);
      }
    }
    return longest / 1e9;
  }

  /** In-flight items the tracker keeps state for (for memory tests). */
  int trackedItems() {
    return items.size() + pendingDelayed.size();
  }

  /** The item a worker thread holds, with the trigger it is processed for. */
  public record WorkerItem(QueueTracker queue, Object item, Trigger trigger) {}

  private static final class ItemState {
    volatile Trigger waiting;
    volatile Trigger processing;
    volatile long addedAt;
    volatile long startedAt;
  }

  private static final class AddCall {
    int depth;
    Trigger trigger;
    // A delayed or rate-limited add: its queue's tracker, its item, and the trigger recorded for it.
    QueueTracker tracker;
    Object item;
    Trigger pending;
    Trigger pendingBefore;
  }
}
