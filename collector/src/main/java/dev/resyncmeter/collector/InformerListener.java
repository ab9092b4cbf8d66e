package dev.resyncmeter.collector;

/**
 * One informer listener (what an informer keeps for one registered handler) and the life of the
 * handler call it makes now: it {@linkplain #callStarting starts} on the thread that runs the
 * listener, an update {@linkplain #updateSeen tells} its cause and resource versions, the queue adds
 * made meanwhile on that thread are counted (the thread's {@link HandlerCall}), and it {@linkplain
 * #callFinished finishes} with its outcome. Every library's informer unit drives this one lifecycle;
 * each subclass says only how its library names the handler and whether its drops can be seen.
 *
 * <p>A library calls one listener's handler from one thread at a time, so the call fields need no lock.
 */
public abstract class InformerListener {

  private final Object handler;

  // The handler call in progress.
  private HandlerCall call;
  private boolean inCall;
  private NotificationType callType;
  /** Null unless the call is an update whose cause was told. */
  private UpdateCause cause;
  private boolean unchanged;
  /** Whether the update is an echo of a write from this process: {@link PendingEcho#ECHO}, pending, or null. */
  private PendingEcho echo;

  protected InformerListener(Object handler) {
    this.handler = handler;
  }

  public final Object handler() {
    return handler;
  }

  /** The handler's meters (a library may learn the handler's final label late). */
  public abstract HandlerMetrics metrics();

  /**
   * Whether an update call that added nothing to a queue really dropped the update; when the
   * handler's work may go where no queue is seen, its outcome is {@code unknown}.
   */
  protected abstract boolean dropsAreObservable();

  /** The label of the handler, for the API requests its calls send. */
  public String handlerLabel() {
    return metrics().handler();
  }

  /**
   * A handler method starts on the thread whose handler call is {@code call}. True when this is the
   * listener calling its own handler, and no call of it is open: the scope is opened. False for
   * anything else (a wrapper's delegate, a super call, application code calling a handler directly):
   * those are not notifications.
   */
  public final boolean callStarting(HandlerCall call, Object calledHandler, NotificationType type) {
    if (calledHandler != handler || inCall || !call.begin()) {
      return false;
    }
    inCall = true;
    this.call = call;
    callType = type;
    cause = null;
    echo = null;
    return true;
  }

  /**
   * The open call is an update: {@code sync} when it replays the cache (a periodic resync or a
   * relist) rather than a watch event, {@code sameInstance} when old and new are one object. Queue
   * adds made from now on carry the trigger this makes.
   */
  public final void updateSeen(boolean sync, boolean sameInstance, String oldVersion, String newVersion) {
    updateSeen(sync, sameInstance, oldVersion, newVersion, null);
  }

  /**
   * {@link #updateSeen(boolean, boolean, String, String)} of an update that may be an echo: {@code
   * echo} is what {@link OwnWrites#check} said of its new object (null: not an echo). Its adds carry
   * {@code own_write}, settled later when the echo is pending.
   */
  public final void updateSeen(boolean sync, boolean sameInstance, String oldVersion, String newVersion, PendingEcho echo) {
    cause = NoopUpdateClassifier.cause(sync, sameInstance);
    unchanged = NoopUpdateClassifier.resourceVersionUnchanged(oldVersion, newVersion);
    this.echo = unchanged ? null : echo;
    if (this.echo == null) {
      call.classify(Trigger.ofHandlerCall(NotificationType.UPDATE, cause, unchanged));
    } else {
      call.classify(Trigger.OWN_WRITE, this.echo == PendingEcho.ECHO ? null : this.echo);
    }
  }

  /**
   * The handler method returned or threw: the scope closes, and with {@code counting} (the unit is
   * still on) the call is counted with what it added to queues. A call opened is always closed, even
   * if its unit went off since.
   */
  public final void callFinished(boolean counting) {
    inCall = false;
    boolean enqueued = call.end() > 0;
    UpdateCause updateCause = cause;
    cause = null;
    PendingEcho updateEcho = echo;
    echo = null;
    if (!counting) {
      return;
    }
    HandlerMetrics metrics = metrics();
    if (updateEcho != null && callType == NotificationType.UPDATE) {
      updateEcho.whenTold(isEcho -> {
        if (isEcho) {
          metrics.ownWriteUpdate();
        }
      });
    }
    if (callType == NotificationType.UPDATE && updateCause != null) {
      metrics.update(updateCause, unchanged, NoopUpdateClassifier.outcome(dropsAreObservable(), enqueued));
    } else {
      metrics.notification(callType);
    }
  }
}
