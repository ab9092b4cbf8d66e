package dev.resyncmeter.collector;

import java.util.function.Supplier;

/**
 * Everything the agent follows per thread, in one object behind one {@link ThreadLocal}: the advice
 * on a hot path reads it once and passes it on, instead of one thread-local read per concern. It is
 * made of parts, each owning its fields: the {@linkplain #handlerCall handler call}, the {@linkplain
 * #addCall add call}, the {@linkplain #held held item} and the {@linkplain #reconcile reconcile} in
 * progress. They are made once with the context, so following a call allocates nothing. Only its
 * own thread touches a context, so nothing in it needs a lock.
 */
public final class ThreadContext {

  private static final ThreadLocal<ThreadContext> CURRENT = ThreadLocal.withInitial(ThreadContext::new);

  public static ThreadContext current() {
    return CURRENT.get();
  }

  private final HandlerCall handlerCall = new HandlerCall();
  private final AddCall addCall = new AddCall();
  private final HeldItem held = new HeldItem();
  private final Reconcile reconcile = new Reconcile();
  private final LastRow lastRow = new LastRow();
  private final LastQueue lastQueue = new LastQueue();

  /** The informer listener this thread runs, or delivers for, now. */
  private InformerListener listener;
  /** An operator framework's per-thread state (JOSDK: the event being handled, the reconcile running). */
  private Object operator;
  /** An informer's distribute call on this thread: -1 when none runs, else the listeners it reached. */
  private int distributedTo = -1;

  private ThreadContext() {}

  /** The handler call in progress on this thread. */
  public HandlerCall handlerCall() {
    return handlerCall;
  }

  /** The workqueue add call in progress on this thread. */
  public AddCall addCall() {
    return addCall;
  }

  /** The work item this thread took from a queue and has not finished. */
  public HeldItem held() {
    return held;
  }

  /** The reconcile running on this thread. */
  public Reconcile reconcile() {
    return reconcile;
  }

  /** The counting row this thread used last. */
  public LastRow lastRow() {
    return lastRow;
  }

  LastQueue lastQueue() {
    return lastQueue;
  }

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
  public <T> T operator(Class<T> type, Supplier<T> make) {
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
}
