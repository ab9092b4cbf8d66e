package dev.resyncmeter.agent.clientjava.informer;

import dev.resyncmeter.agent.clientjava.ClientJava;
import dev.resyncmeter.agent.clientjava.KindNames;
import dev.resyncmeter.agent.runtime.AgentFaults;
import dev.resyncmeter.agent.runtime.AgentMetrics;
import dev.resyncmeter.agent.runtime.HandlerCalls;
import dev.resyncmeter.agent.runtime.IdentityWeakMap;
import dev.resyncmeter.agent.runtime.LateStart;
import dev.resyncmeter.agent.runtime.ResourceVersions;
import dev.resyncmeter.agent.runtime.UnitSwitch;
import dev.resyncmeter.collector.NotificationType;
import dev.resyncmeter.collector.RelistReason;
import dev.resyncmeter.collector.ResyncMetrics;
import dev.resyncmeter.collector.ThreadContext;

/**
 * What the client-java informer advice calls. It follows a notification from
 * {@code SharedProcessor.distribute(notification, isSync)} on the informer thread to the handler call
 * on the listener's thread, and hands the classified call to the collector. It catches nothing: the
 * advice that calls it suppresses and counts what it throws.
 */
public final class InformerBridge {

  /** The switch of the part this belongs to. */
  private static final UnitSwitch SWITCH = ClientJava.INFORMER.unitSwitch();

  // Identity keys, weak, so stopped informers and processed notifications go away.
  static final IdentityWeakMap<InformerState> INFORMER_OF_PROCESSOR = new IdentityWeakMap<>();
  static final IdentityWeakMap<InformerState> INFORMER_OF_FIFO = new IdentityWeakMap<>();
  static final IdentityWeakMap<ListenerState> LISTENERS = new IdentityWeakMap<>();
  /** Relist updates in flight: the listener thread cannot see {@code isSync}, so distribute marks them. */
  private static final IdentityWeakMap<Boolean> RELIST_UPDATES = new IdentityWeakMap<>();


  private InformerBridge() {}

  // ---- informer thread -------------------------------------------------------------------------

  /** A {@code DefaultSharedIndexInformer} was made for {@code apiType}. */
  public static void informerCreated(Class<?> apiType, long resyncPeriodMillis, Object deltaFifo, Object processor) {
    ResyncMetrics metrics = AgentMetrics.whenOn(SWITCH);
    if (metrics == null) {
      return;
    }
    String kind = KindNames.of(apiType);
    InformerState informer = new InformerState(kind, resyncPeriodMillis, metrics.informer(kind));
    INFORMER_OF_PROCESSOR.put(processor, informer);
    INFORMER_OF_FIFO.put(deltaFifo, informer);
  }

  /** A {@code ProcessorListener} was made for {@code handler}, with the period it will resync at. */
  public static void listenerCreated(Object listener, Object handler, long resyncPeriodMillis) {
    if (!SWITCH.on()) {
      return;
    }
    LISTENERS.put(listener, new ListenerState(handler, resyncPeriodMillis));
  }

  /** The listener joined an informer's processor: now its kind is known. */
  public static void listenerAdded(Object processor, Object listener) {
    if (!SWITCH.on()) {
      return;
    }
    ListenerState state = LISTENERS.get(listener);
    InformerState informer = INFORMER_OF_PROCESSOR.get(processor);
    if (state == null || informer == null) {
      return;
    }
    state.informer = informer;
    state.resolve();
  }

  /** A controller was built: the handlers of its watches now have their final label. */
  public static void resolvePendingHandlers() {
    if (!SWITCH.on()) {
      return;
    }
    for (ListenerState listener : LISTENERS.values()) {
      if (!listener.resolved()) {
        listener.resolve();
      }
    }
  }

  /**
   * {@code DefaultSharedIndexInformer.handleDeltas}, on the informer's thread, before it distributes
   * them. Only after an attach is there anything to do: an informer made before it is met here first.
   */
  public static void deltasHandling(Object processor, Object controller, long resyncCheckPeriodMillis) throws ReflectiveOperationException {
    if (!LateStart.attached() || !SWITCH.on()) {
      return;
    }
    LateInformers.deltasHandling(processor, controller, resyncCheckPeriodMillis);
  }

  public static void distributeStarting(Object notification, boolean isSync) throws ReflectiveOperationException {
    if (!SWITCH.on()) {
      return;
    }
    ThreadContext.current().distributeStarted();
    // Marked before any listener can take it: listener threads run as soon as it is queued.
    if (isSync && NotificationFields.isUpdateOfDifferentInstances(notification)) {
      RELIST_UPDATES.put(notification, Boolean.TRUE);
    }
  }

  /** {@code ProcessorListener.add} during a distribute: one listener got the notification. */
  public static void notificationQueued() {
    if (!SWITCH.on()) {
      return;
    }
    ThreadContext.current().distributedToListener();
  }

  /**
   * A relist notification that no listener took was lost: client-java sends sync notifications only
   * to the listeners whose resync was due at the last tick.
   */
  public static void distributeFinished(Object processor, Object notification, boolean isSync) throws ReflectiveOperationException {
    int reached = ThreadContext.current().distributeFinished();
    if (SWITCH.isOff()) {
      return;
    }
    if (isSync && reached == 0 && NotificationFields.isRelistNotification(notification)) {
      InformerState informer = INFORMER_OF_PROCESSOR.get(processor);
      if (informer != null) {
        informer.metrics.relistNotificationLost();
      }
    }
  }

  /** {@code DeltaFIFO.resync()}: the timer found a listener due and replays the cache. */
  public static void resyncTick(Object deltaFifo) {
    if (!SWITCH.on()) {
      return;
    }
    InformerState informer = INFORMER_OF_FIFO.get(deltaFifo);
    if (informer != null) {
      informer.metrics.resync();
    } else if (LateStart.attached()) {
      LateInformers.resyncOfUnknownFifo(deltaFifo);
    }
  }

  /**
   * The reflector replaces the cache with a fresh list. The first list of a reflector has no last
   * synced version; any later one is a relist, expired when the server said 410 Gone.
   */
  public static void listReplacing(Class<?> apiType, String lastSyncResourceVersion, boolean versionExpired) {
    ResyncMetrics metrics = AgentMetrics.whenOn(SWITCH);
    if (metrics == null || lastSyncResourceVersion == null) {
      return;
    }
    metrics.informer(KindNames.of(apiType)).relist(versionExpired ? RelistReason.EXPIRED : RelistReason.ERROR);
  }

  // ---- listener thread -------------------------------------------------------------------------

  public static void listenerThreadStarted(Object listener) {
    if (!SWITCH.on()) {
      return;
    }
    ThreadContext.current().runListener(LISTENERS.get(listener));
  }

  public static void listenerThreadStopped() {
    callSiteEnded();
    ThreadContext.current().runListener(null);
  }

  /**
   * The listener thread read an update notification, right before it calls the handler with it. Only
   * a relist marks notifications, before it queues them: with none marked there is nothing to note.
   */
  public static void updateTaken(Object notification, Object newObj, String oldVersion, String newVersion) {
    if (!SWITCH.on()) {
      return;
    }
    Object listener = ThreadContext.current().listener();
    if (listener instanceof ListenerState state && !LateStart.attached()) {
      state.taken(newObj, oldVersion, newVersion); // for the call site that follows
    }
    if (RELIST_UPDATES.isEmpty()) {
      return;
    }
    if (listener instanceof ListenerState state) {
      state.currentNotification = notification;
    } else if (LateStart.attached()) {
      LateInformers.updateTakenOnUnknownThread(notification);
    }
  }

  /**
   * A handler method starts. Returns the call to pass to {@link #handlerCallFinished}, or null when
   * this is not the informer calling the listener's own handler (a wrapper's delegate, a super call,
   * application code calling a handler directly): those are not notifications.
   */
  private static ListenerState callStarting(Object handler, NotificationType type) {
    if (!SWITCH.on()) {
      return null;
    }
    ThreadContext context = ThreadContext.current();
    ListenerState state;
    if (context.listener() instanceof ListenerState running) {
      state = running;
    } else if (!LateStart.attached() || (state = LateInformers.listenerThreadFound(context, handler)) == null) {
      return null;
    }
    return state.callStarting(context.handlerCall(), handler, type) ? state : null;
  }

  /** A handler's {@code onAdd} or {@code onDelete} ({@code method}) starts: see {@link #callStarting}. */
  public static Object handlerCallStarting(Object handler, String method) {
    return callStarting(handler, HandlerCalls.addOrDelete(method));
  }

  /**
   * An update handler method starts: {@link #callStarting}, and the update's cause. Old and new are
   * one instance only in a periodic resync (a watch event or a relist always brings a fresh copy), so
   * such a call is a sync without asking distribute.
   */
  public static Object updateCallStarting(Object handler, boolean sameInstance, String oldVersion, String newVersion, Object newObject) {
    ListenerState state = callStarting(handler, NotificationType.UPDATE);
    boolean relist = state != null && state.currentNotification != null && RELIST_UPDATES.get(state.currentNotification) != null;
    return HandlerCalls.updateOpened(state, sameInstance, relist, oldVersion, newVersion, newObject, SWITCH);
  }

  /**
   * The handler method returned or threw: count the call with what it added to queues; null when it
   * opened none. Not gated like the start: a call opened while the unit was on is always closed, even
   * if the unit went off since.
   */
  public static void handlerCallFinished(Object call) {
    if (call instanceof ListenerState state) {
      state.currentNotification = null;
    }
    HandlerCalls.finished(call, SWITCH);
  }

  // ---- the handler's call sites in ProcessorListener.run() (HandlerCallSites) ------------------
  // Started with the JVM only: after an attach the handler classes are woven instead. Not advice, so
  // each catches what it throws, as suppressing advice would.

  /** Right before {@code run()} calls {@code handler.onUpdate(old, new)}: what the update advice does. */
  public static void updateAtCallSite(Object oldObj, Object newObj) {
    try {
      ListenerState state = callSiteListener();
      if (state != null) {
        // read before the call opens: a fault here then leaves no call open
        String oldVersion;
        String newVersion;
        if (state.takenNewObj == newObj && newObj != null) {
          // read by the getNewObj() advice, which can name client-java's types
          oldVersion = state.takenOldVersion;
          newVersion = state.takenNewVersion;
        } else {
          // a run() that did not read the notification through getNewObj(): by reflection
          oldVersion = ResourceVersions.of(oldObj);
          newVersion = oldObj == newObj ? oldVersion : ResourceVersions.of(newObj);
        }
        state.taken(null, null, null);
        state.callSiteOpen = updateCallStarting(state.handler(), oldObj == newObj, oldVersion, newVersion, newObj) != null;
      }
    } catch (Throwable t) {
      AgentFaults.adviceFault(t, SWITCH.component());
    }
  }

  /** Right before {@code run()} calls {@code handler.onAdd(obj)}. */
  public static void addAtCallSite() {
    addOrDeleteAtCallSite("onAdd");
  }

  /** Right before {@code run()} calls {@code handler.onDelete(obj, deletedFinalStateUnknown)}. */
  public static void deleteAtCallSite() {
    addOrDeleteAtCallSite("onDelete");
  }

  private static void addOrDeleteAtCallSite(String method) {
    try {
      ListenerState state = callSiteListener();
      if (state != null) {
        state.callSiteOpen = handlerCallStarting(state.handler(), method) != null;
      }
    } catch (Throwable t) {
      AgentFaults.adviceFault(t, SWITCH.component());
    }
  }

  /** The listener whose thread this is, when its call sites count (started with the JVM); else null. */
  private static ListenerState callSiteListener() {
    if (LateStart.attached()) {
      return null;
    }
    return ThreadContext.current().listener() instanceof ListenerState state ? state : null;
  }

  /**
   * Right after the handler returned, and before {@code run()} takes the next notification: a handler
   * that threw skipped the first, and {@code run()} logged it since.
   */
  public static void callSiteEnded() {
    try {
      if (ThreadContext.current().listener() instanceof ListenerState state && state.callSiteOpen) {
        state.callSiteOpen = false;
        handlerCallFinished(state);
      }
    } catch (Throwable t) {
      AgentFaults.adviceFault(t, SWITCH.component());
    }
  }
}
