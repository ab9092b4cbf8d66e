package dev.resyncmeter.agent.fabric8;

import dev.resyncmeter.agent.runtime.AgentMetrics;
import dev.resyncmeter.agent.runtime.HandlerCalls;
import dev.resyncmeter.agent.runtime.IdentityWeakMap;
import dev.resyncmeter.agent.runtime.LateStart;
import dev.resyncmeter.agent.runtime.UnitSwitch;
import dev.resyncmeter.collector.InformerListener;
import dev.resyncmeter.collector.NotificationType;
import dev.resyncmeter.collector.RelistReason;
import dev.resyncmeter.collector.ResyncMetrics;
import dev.resyncmeter.collector.ThreadContext;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the fabric8 informer advice calls. A notification is made in {@code ProcessorStore} (on the
 * watch or list thread), delivered by {@code ProcessorListener.add} (usually on the informer's serial
 * executor) and handled by the handler inside that call: the delivery is the scope in which a handler
 * call is the informer's. It catches nothing: the advice that calls it suppresses and counts what
 * it throws.
 */
public final class Fabric8Bridge {

  /** The switch of the part this belongs to. */
  private static final UnitSwitch SWITCH = Fabric8.INFORMER.unitSwitch();

  /**
   * What {@link #deliveryStarting} returns when the thread delivered for no listener before. It
   * returns null when it opened no delivery: as advice whose call failed does.
   */
  private static final Object NO_LISTENER_BEFORE = new Object();

  static final IdentityWeakMap<Fabric8Informer> INFORMER_OF_PROCESSOR = new IdentityWeakMap<>();
  static final IdentityWeakMap<Fabric8Informer> INFORMER_OF_STORE = new IdentityWeakMap<>();
  static final IdentityWeakMap<Fabric8Informer> INFORMER_OF_REFLECTOR = new IdentityWeakMap<>();
  static final IdentityWeakMap<Fabric8Listener> LISTENERS = new IdentityWeakMap<>();
  /** Updates made while a relist's pages replace the cache: delivered later, on another thread. */
  private static final IdentityWeakMap<Boolean> RELIST_UPDATES = new IdentityWeakMap<>();

  /** The processor a handler is being added to, on the adding thread (the listener is made inside). */
  private static final ThreadLocal<Object> ADDING_TO = new ThreadLocal<>();
  /** This thread applies a relist's page to the cache; the counter lets other threads skip the check. */
  private static final ThreadLocal<Boolean> RELISTING = new ThreadLocal<>();
  private static final AtomicInteger RELIST_PAGES_IN_PROGRESS = new AtomicInteger();


  private Fabric8Bridge() {}

  // ---- informer set-up -------------------------------------------------------------------------

  /** A {@code DefaultSharedIndexInformer} was made for {@code apiType}. */
  public static void informerCreated(Class<?> apiType, Object processor, Object store, Object reflector) {
    ResyncMetrics metrics = AgentMetrics.whenOn(SWITCH);
    if (metrics == null) {
      return;
    }
    // fabric8's model classes are named after their kinds (ConfigMap, Deployment)
    String kind = apiType == null ? "unknown" : apiType.getSimpleName();
    Fabric8Informer informer = new Fabric8Informer(kind, metrics.informer(kind));
    INFORMER_OF_PROCESSOR.put(processor, informer);
    INFORMER_OF_STORE.put(store, informer);
    INFORMER_OF_REFLECTOR.put(reflector, informer);
  }

  /** {@code SharedProcessor.addProcessorListener} starts: the listener it makes belongs to {@code processor}. */
  public static void listenerAdding(Object processor) {
    if (SWITCH.on()) {
      ADDING_TO.set(processor);
    }
  }

  public static void listenerAdded() {
    ADDING_TO.remove();
  }

  /** A {@code ProcessorListener} was made for {@code handler} with the resync period fabric8 chose for it. */
  public static void listenerCreated(Object listener, Object handler, long resyncPeriodMillis) throws ReflectiveOperationException {
    ResyncMetrics metrics = AgentMetrics.whenOn(SWITCH);
    if (metrics == null || handler == null) {
      return;
    }
    Fabric8Informer informer = INFORMER_OF_PROCESSOR.get(ADDING_TO.get());
    String kind = informer == null ? "unknown" : informer.kind;
    Fabric8Listener state =
        new Fabric8Listener(
            handler, metrics.handler(kind, Fabric8Handlers.label(handler)), Fabric8Handlers.handsWorkToObservedQueue(handler));
    state.metrics().resyncPeriodMillis(resyncPeriodMillis);
    LISTENERS.put(listener, state);
  }

  // ---- where notifications are made ------------------------------------------------------------

  /** {@code ProcessorStore.update(List)}: a list's page; after the first full list, a relist's. */
  public static void listPageStarting(boolean synced) {
    if (synced && SWITCH.on()) {
      RELISTING.set(Boolean.TRUE);
      RELIST_PAGES_IN_PROGRESS.incrementAndGet();
    }
  }

  public static void listPageFinished() {
    if (RELISTING.get() != null) {
      RELISTING.remove();
      RELIST_PAGES_IN_PROGRESS.decrementAndGet();
    }
  }

  /**
   * {@code SharedProcessor.distribute(notification, isSync)}: marks a relist's updates before they are
   * queued. After an attach, a processor made before it is met here.
   */
  public static void distributing(Object processor, Object notification) throws ReflectiveOperationException {
    if (LateStart.attached() && INFORMER_OF_PROCESSOR.get(processor) == null && SWITCH.on()) {
      LateFabric8Informers.processorMet(processor, notification);
    }
    if (RELIST_PAGES_IN_PROGRESS.get() > 0 && RELISTING.get() != null && SWITCH.on()) {
      RELIST_UPDATES.put(notification, Boolean.TRUE);
    }
  }

  /** {@code ProcessorStore.resync()}: the cache is replayed to the listeners due. */
  public static void resync(Object store) throws ReflectiveOperationException {
    if (!SWITCH.on()) {
      return;
    }
    Fabric8Informer informer = INFORMER_OF_STORE.get(store);
    if (informer == null && LateStart.attached()) {
      informer = LateFabric8Informers.informerOfStore(store);
      if (informer == null) {
        LateFabric8Informers.resyncOfUnknownStore(store);
      }
    }
    if (informer != null) {
      informer.metrics.resync();
    }
  }

  /**
   * A list finished and the cache drops what it did not list ({@code syncList}, {@code retainAll}
   * before 7.x). Once the store has synced, every list is a relist; expired after a 410 Gone.
   */
  public static void listSynced(Object store, boolean synced) throws ReflectiveOperationException {
    if (!synced || !SWITCH.on()) {
      return;
    }
    Fabric8Informer informer = INFORMER_OF_STORE.get(store);
    if (informer == null && LateStart.attached()) {
      informer = LateFabric8Informers.informerOfStore(store);
    }
    if (informer != null) {
      boolean expired = informer.watchGone;
      informer.watchGone = false;
      informer.metrics.relist(expired ? RelistReason.EXPIRED : RelistReason.ERROR);
    }
  }

  /** The reflector's watch closed with an error; {@code gone} for 410 Gone. */
  public static void watchClosed(Object reflector, boolean gone) throws ReflectiveOperationException {
    if (!SWITCH.on()) {
      return;
    }
    Fabric8Informer informer = INFORMER_OF_REFLECTOR.get(reflector);
    if (informer == null && LateStart.attached()) {
      informer = LateFabric8Informers.informerOfReflector(reflector);
    }
    if (informer != null) {
      informer.watchGone = gone;
    }
  }

  // ---- where notifications are delivered -------------------------------------------------------

  /**
   * {@code ProcessorListener.add(notification)}: the listener's handler is called inside. Returns what
   * {@link #deliveryFinished} restores (the thread's previous listener), or null when it opened no
   * delivery.
   */
  public static Object deliveryStarting(Object listener, Object notification) throws ReflectiveOperationException {
    if (!SWITCH.on()) {
      return null;
    }
    Fabric8Listener state = LISTENERS.get(listener);
    if (state == null && LateStart.attached()) {
      state = LateFabric8Informers.listenerMet(listener, notification);
    }
    if (state == null) {
      return null;
    }
    state.notification = notification;
    InformerListener previous = ThreadContext.current().runListener(state);
    return previous != null ? previous : NO_LISTENER_BEFORE;
  }

  public static void deliveryFinished(Object previous) {
    if (previous == null) {
      return;
    }
    ThreadContext context = ThreadContext.current();
    if (context.listener() instanceof Fabric8Listener delivering) {
      delivering.notification = null;
    }
    context.runListener(previous == NO_LISTENER_BEFORE ? null : (InformerListener) previous);
  }

  /**
   * A handler method starts. Returns the call for {@link #handlerCallFinished}, or null when this is
   * not the delivering listener's own handler being called by it (a delegate, a super call).
   */
  private static Fabric8Listener callStarting(Object handler, NotificationType type) {
    if (!SWITCH.on()) {
      return null;
    }
    ThreadContext context = ThreadContext.current();
    if (context.listener() instanceof Fabric8Listener state && state.callStarting(context.handlerCall(), handler, type)) {
      return state;
    }
    return null;
  }

  /** A handler's {@code onAdd} or {@code onDelete} ({@code method}) starts: see {@link #callStarting}. */
  public static Object handlerCallStarting(Object handler, String method) {
    return callStarting(handler, HandlerCalls.addOrDelete(method));
  }

  /**
   * An update handler method starts: {@link #callStarting}, and the update's cause. fabric8 passes
   * one instance as old and new only in a periodic resync; an update made while a relist replaced the
   * cache is a relist's; any other is a watch event's.
   */
  public static Object updateCallStarting(Object handler, boolean sameInstance, String oldVersion, String newVersion, Object newObject) {
    Fabric8Listener state = callStarting(handler, NotificationType.UPDATE);
    boolean relist = state != null && !sameInstance && !RELIST_UPDATES.isEmpty() && RELIST_UPDATES.get(state.notification) != null;
    return HandlerCalls.updateOpened(state, sameInstance, relist, oldVersion, newVersion, newObject, SWITCH);
  }

  /**
   * {@code ProcessorListener.add} calls the listener's handler's {@code onAdd} or {@code onDelete}
   * ({@code method}; null for a notification of another kind), started with the JVM: after an attach
   * the handler classes are woven instead.
   */
  public static Object addOrDeleteAtCallSite(Object handler, String method) {
    return method == null || LateStart.attached() ? null : handlerCallStarting(handler, method);
  }

  /** {@code ProcessorListener.add} calls the listener's handler's {@code onUpdate}: see {@link #addOrDeleteAtCallSite}. */
  public static Object updateAtCallSite(Object handler, boolean sameInstance, String oldVersion, String newVersion, Object newObject) {
    return LateStart.attached() ? null : updateCallStarting(handler, sameInstance, oldVersion, newVersion, newObject);
  }

  /**
   * The handler method returned or threw; null when it opened no call. Not gated: a call opened while
   * on is always closed.
   */
  public static void handlerCallFinished(Object call) {
    HandlerCalls.finished(call, SWITCH);
  }
}
