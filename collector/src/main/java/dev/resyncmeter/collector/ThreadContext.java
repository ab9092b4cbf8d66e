package dev.resyncmeter.collector;

import java.lang.ref.WeakReference;

/**
 * Everything the agent follows per thread, in one object behind one {@link ThreadLocal}: the advice
 * on a hot path reads it once and passes it on, instead of one thread-local read per concern. Only
 * its own thread touches a context, so its fields need no lock.
 */
public final class ThreadContext {

  private static final ThreadLocal<ThreadContext> CURRENT = ThreadLocal.withInitial(ThreadContext::new);

  public static ThreadContext current() {
    return CURRENT.get();
  }

  // ---- the handler call in progress (HandlerCallTracker) ---------------------------------------
  boolean handlerCallOpen;
  int handlerQueueAdds;
  Trigger handlerTrigger;

  // ---- the workqueue add call in progress, outermost first (QueueTracker) ---------------------
  int addDepth;
  Trigger addTrigger;
  /** A delayed or rate-limited add: its queue's tracker, its item, and the trigger recorded for it. */
  QueueTracker addTracker;
  Object addItem;
  Trigger addPending;
  Trigger addPendingBefore;
  /** This thread fires a delaying queue's delayed adds. */
  boolean firesDelayedAdds;

  // ---- the work item this thread took from a queue and has not finished (QueueTracker) --------
  QueueTracker heldTracker;
  Object heldItem;
  Trigger heldTrigger;
  int heldSlot = -1;
  /**
   * The clock when this thread took its item, and the clock when the reconcile of that item ended:
   * each is read once and serves twice (the reconcile starts right after get and done follows right
   * after the reconcile), because a clock read costs more than everything else the agent does.
   */
  long heldSince;
  private boolean heldSinceUnclaimed;
  long reconcileEndedAt;
  boolean reconcileEndUnclaimed;
  /** The worker asked for its item to come back (a rate-limited or delayed add of that item). */
  boolean heldRequeued;
  /**
   * The reconcile of the held item threw, as the instrumentation saw it where it cannot time the
   * reconcile itself (a controller built before the agent was attached).
   */
  boolean heldReconcileThrew;

  // ---- the reconcile running on this thread, for the API requests it sends ------------------
  ControllerMetrics reconciling;
  /** Null while the trigger is told only when the reconcile ends: its requests wait in {@link #untriggeredRequests}. */
  Trigger reconcilingTrigger;
  /** Per {@link ApiVerb}: requests of the running reconcile whose trigger is not known yet. */
  private long[] untriggeredRequests;

  // ---- the writes of the running reconcile, for its effect ---------------------------------
  private int writes;
  private int writesChangedNothing;
  /** The resourceVersion the object had before the update or patch about to be sent here, when known. */
  private String writeBase;
  /** The version of the object the running reconcile was handed (JOSDK's primary resource), when known. */
  private String handedVersion;

  // ---- the last queue this thread used, so its tracker is found without a map lookup ----------
  private WeakReference<Object> lastQueue;
  private QueueTracker lastTracker;

  // ---- the counting row this thread used last, so it is found without a thread-local lookup --
  private ThreadRows lastRows;
  private long[] lastRow;

  // ---- what the instrumentation units follow on this thread ------------------------------------
  /** The informer listener this thread runs, or delivers for, now. */
  private InformerListener listener;
  /** An operator framework's per-thread state (JOSDK: the event being handled, the reconcile running). */
  private Object operator;
  /** An informer's distribute call on this thread: -1 when none runs, else the listeners it reached. */
  private int distributedTo = -1;

  private ThreadContext() {}

  /** The informer listener this thread runs now, or null. */
  public InformerListener listener() {
    return listener;
  }

  /** This thread runs {@code listener} now (null: none); returns the one it ran before. */
  public InformerListener runListener(InformerListener listener) {
    InformerListener previous = this.listener;
    this.listener = listener;
    return previous;
  }

  /**
   * The state an operator framework's unit keeps on this thread, of {@code type}; made by {@code
   * make} on first use.
   */
  public <T> T operator(Class<T> type, java.util.function.Supplier<T> make) {
    Object state = operator;
    if (type.isInstance(state)) {
      return type.cast(state);
    }
    T made = make.get();
    operator = made;
    return made;
  }

  /** The operator state of {@code type} this thread has, or null when it has none. */
  public <T> T operatorIfAny(Class<T> type) {
    Object state = operator;
    return type.isInstance(state) ? type.cast(state) : null;
  }

  /** An informer's distribute of one notification starts on this thread. */
  public void distributeStarted() {
    distributedTo = 0;
  }

  /** The distribute running on this thread queued its notification for one more listener. */
  public void distributedToListener() {
    if (distributedTo >= 0) {
      distributedTo++;
    }
  }

  /** The distribute on this thread ended: how many listeners it reached (0 also when none ran). */
  public int distributeFinished() {
    int reached = Math.max(distributedTo, 0);
    distributedTo = -1;
    return reached;
  }

  /** The tracker this thread last used for {@code queue}, or null. */
  public QueueTracker cachedTracker(Object queue) {
    WeakReference<Object> last = lastQueue;
    return last != null && last.get() == queue ? lastTracker : null;
  }

  public void cacheTracker(Object queue, QueueTracker tracker) {
    lastQueue = new WeakReference<>(queue);
    lastTracker = tracker;
  }

  /** This thread's row of {@code rows}, if it used that one last; else null. */
  long[] cachedRow(ThreadRows rows) {
    return lastRows == rows ? lastRow : null;
  }

  void cacheRow(ThreadRows rows, long[] row) {
    lastRows = rows;
    lastRow = row;
  }

  /** A reconcile of {@code controller} with {@code trigger} starts on this thread. */
  public void reconcileBegan(ControllerMetrics controller, Trigger trigger) {
    reconciling = controller;
    reconcilingTrigger = trigger;
    forgetWrites();
  }

  /**
   * A reconcile of {@code controller} starts on this thread whose trigger is told only when it ends
   * (after an attach, a worker took its item in a {@code get} that began before the agent came).
   */
  public void reconcileBeganUntriggered(ControllerMetrics controller) {
    reconciling = controller;
    reconcilingTrigger = null;
    forgetWrites();
  }

  /** The reconcile running on this thread ended. */
  public void reconcileOver() {
    reconciling = null;
    reconcilingTrigger = null;
  }

  /** The reconcile running on this thread ended with {@code trigger}: the requests that waited for it count now. */
  public void reconcileOver(Trigger trigger) {
    long[] waiting = untriggeredRequests;
    if (reconciling != null && reconcilingTrigger == null && waiting != null) {
      for (ApiVerb verb : ApiVerb.values()) {
        for (long n = waiting[verb.ordinal()]; n > 0; n--) {
          reconciling.apiRequested(trigger, verb);
        }
        waiting[verb.ordinal()] = 0;
      }
    }
    reconcileOver();
  }

  /** A request of the running reconcile whose trigger is not known yet. */
  void requestUntriggered(ApiVerb verb) {
    if (untriggeredRequests == null) {
      untriggeredRequests = new long[ApiVerb.values().length];
    }
    untriggeredRequests[verb.ordinal()]++;
  }

  /** The running reconcile sends a write request. */
  void writeSent() {
    writes++;
  }

  /**
   * The update or patch about to be sent on this thread starts from an object at {@code
   * resourceVersion} (null: not known); its answer is compared with it.
   */
  public void writeBase(String resourceVersion) {
    if (reconciling != null) {
      writeBase = resourceVersion;
    }
  }

  public boolean hasWriteBase() {
    return writeBase != null;
  }

  /**
   * The running reconcile was handed an object at {@code resourceVersion}: a write whose version
   * before is not known is compared with it. A version names one state of one object, so an answer
   * carrying it can only be that object left as it was.
   */
  public void reconcileHandedVersion(String resourceVersion) {
    handedVersion = resourceVersion;
  }

  /** The resourceVersion told by {@link #writeBase} for the write being answered, once. */
  public String takeWriteBase() {
    String base = writeBase;
    writeBase = null;
    return base;
  }

  /**
   * A write of the running reconcile got its answer: {@code code}, and for an update or patch the
   * resourceVersion of the object before ({@code before}, null when not known: then the version of
   * the object the reconcile was handed, if any) and in the answer.
   * It changed nothing when the server refused it, or answered with the version the object had.
   */
  public void writeAnswered(int code, String before, String after) {
    if (reconciling != null && writesChangedNothing < writes && changedNothing(code, before != null ? before : handedVersion, after)) {
      writesChangedNothing++;
    }
  }

  static boolean changedNothing(int code, String before, String after) {
    if (code >= 400 && code <= 599) {
      return true;
    }
    return code >= 200 && code <= 299 && before != null && before.equals(after);
  }

  /** The effect of the reconcile that ran last on this thread, from its writes; forgets them. */
  public ReconcileEffect takeReconcileEffect() {
    ReconcileEffect effect = ReconcileEffect.of(writes, writesChangedNothing);
    forgetWrites();
    return effect;
  }

  private void forgetWrites() {
    writes = 0;
    writesChangedNothing = 0;
    writeBase = null;
    handedVersion = null;
  }

  /** The controller whose reconcile runs on this thread, or null. */
  public ControllerMetrics reconcilingController() {
    return reconciling;
  }

  /** The trigger of the reconcile running on this thread; null when none runs or it is told at its end. */
  public Trigger reconcilingTrigger() {
    return reconcilingTrigger;
  }

  /** Whether a reconcile that the agent attributes runs on this thread. */
  public boolean reconciling() {
    return reconciling != null;
  }

  /** The item this thread holds was taken at {@code now}. */
  void took(long now) {
    heldSince = now;
    heldSinceUnclaimed = true;
    reconcileEndUnclaimed = false;
    heldRequeued = false;
    heldReconcileThrew = false;
  }

  /** Whether this thread holds {@code item}, taken from the queue of {@code tracker}. */
  public boolean holds(QueueTracker tracker, Object item) {
    return heldTracker == tracker && heldItem != null && (heldItem == item || heldItem.equals(item));
  }

  /** The clock when this thread took the item it holds. */
  public long heldSince() {
    return heldSince;
  }

  /** The reconcile of the held item threw (seen where the agent cannot time that reconcile itself). */
  public void heldReconcileThrew() {
    heldReconcileThrew = true;
  }

  public boolean heldReconcileFailed() {
    return heldReconcileThrew;
  }

  /** Whether the worker asked for the item it holds to come back. */
  public boolean heldRequeued() {
    return heldRequeued;
  }

  /**
   * The clock at the start of a reconcile: the time its item was taken, for the first reconcile
   * after a get on this thread, else a fresh read.
   */
  public long reconcileStarted() {
    if (heldSinceUnclaimed && heldItem != null) {
      heldSinceUnclaimed = false;
      return heldSince;
    }
    return System.nanoTime();
  }

  /** The clock at the end of a reconcile; the done of the held item that follows reuses it. */
  public long reconcileEnded() {
    long now = System.nanoTime();
    if (heldItem != null) {
      reconcileEndedAt = now;
      reconcileEndUnclaimed = true;
    }
    return now;
  }

  /** The trigger of the work item this thread holds, or {@code other} when it holds none. */
  public Trigger heldTrigger() {
    Trigger trigger = heldTrigger;
    return trigger == null ? Trigger.OTHER : trigger;
  }
}
