package dev.resyncmeter.agent.fabric8;

import dev.resyncmeter.agent.AgentFaults;
import dev.resyncmeter.agent.AgentMetrics;
import dev.resyncmeter.agent.IdentityWeakMap;
import dev.resyncmeter.agent.LateStart;
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
 * call is the informer's. Every method catches its own faults: nothing here may reach the host.
 */
public final class Fabric8Bridge {

  static final String COMPONENT = "fabric8-informer";

  /** What {@link #deliveryStarting} returns when it did not open a delivery. */
  static final Object NO_DELIVERY = new Object();

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

  private static final NotificationType[] TYPES = NotificationType.values();

  private Fabric8Bridge() {}

  // ---- informer set-up -------------------------------------------------------------------------

  /** A {@code DefaultSharedIndexInformer} was made for {@code apiType}. */
  public static void informerCreated(Class<?> apiType, Object processor, Object store, Object reflector) {
    try {
      if (!Fabric8Instrumentation.SWITCH.on()) {
        return;
      }
      ResyncMetrics metrics = AgentMetrics.get();
      if (metrics == null) {
        return;
      }
      // fabric8's model classes are named after their kinds (ConfigMap, Deployment)
      String kind = apiType == null ? "unknown" : apiType.getSimpleName();
      Fabric8Informer informer = new Fabric8Informer(kind, metrics.informer(kind));
      INFORMER_OF_PROCESSOR.put(processor, informer);
      INFORMER_OF_STORE.put(store, informer);
      INFORMER_OF_REFLECTOR.put(reflector, informer);
    } catch (Throwable t) {
      AgentFaults.record(COMPONENT, t);
    }
  }

  /** {@code SharedProcessor.addProcessorListener} starts: the listener it makes belongs to {@code processor}. */
  public static void listenerAdding(Object processor) {
    try {
      if (Fabric8Instrumentation.SWITCH.on()) {
        ADDING_TO.set(processor);
      }
    } catch (Throwable t) {
      AgentFaults.record(COMPONENT, t);
    }
  }

  public static void listenerAdded() {
    try {
      ADDING_TO.remove();
    } catch (Throwable t) {
      AgentFaults.record(COMPONENT, t);
    }
  }

  /** A {@code ProcessorListener} was made for {@code handler} with the resync period fabric8 chose for it. */
  public static void listenerCreated(Object listener, Object handler, long resyncPeriodMillis) {
    try {
      if (!Fabric8Instrumentation.SWITCH.on()) {
        return;
      }
      ResyncMetrics metrics = AgentMetrics.get();
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
    } catch (Throwable t) {
      AgentFaults.record(COMPONENT, t);
    }
  }

  // ---- where notifications are made ------------------------------------------------------------

  /** {@code ProcessorStore.update(List)}: a list's page; after the first full list, a relist's. */
  public static void listPageStarting(boolean synced) {
    try {
      if (synced && Fabric8Instrumentation.SWITCH.on()) {
        RELISTING.set(Boolean.TRUE);
        RELIST_PAGES_IN_PROGRESS.incrementAndGet();
      }
    } catch (Throwable t) {
      AgentFaults.record(COMPONENT, t);
    }
  }

  public static void listPageFinished() {
    try {
      if (RELISTING.get() != null) {
        RELISTING.remove();
        RELIST_PAGES_IN_PROGRESS.decrementAndGet();
      }
    } catch (Throwable t) {
      AgentFaults.record(COMPONENT, t);
    }
  }

  /**
   * {@code SharedProcessor.distribute(notification, isSync)}: marks a relist's updates before they are
   * queued. After an attach, a processor made before it is met here.
   */
  public static void distributing(Object processor, Object notification) {
    try {
      if (LateStart.attached() && INFORMER_OF_PROCESSOR.get(processor) == null && Fabric8Instrumentation.SWITCH.on()) {
        LateFabric8Informers.processorMet(processor, notification);
      }
      if (RELIST_PAGES_IN_PROGRESS.get() > 0 && RELISTING.get() != null && Fabric8Instrumentation.SWITCH.on()) {
        RELIST_UPDATES.put(notification, Boolean.TRUE);
      }
    } catch (Throwable t) {
      AgentFaults.record(COMPONENT, t);
    }
  }

  /** {@code ProcessorStore.resync()}: the cache is replayed to the listeners due. */
  public static void resync(Object store) {
    try {
      if (!Fabric8Instrumentation.SWITCH.on()) {
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
    } catch (Throwable t) {
      AgentFaults.record(COMPONENT, t);
    }
  }

  /**
   * A list finished and the cache drops what it did not list ({@code syncList}, {@code retainAll}
   * before 7.x). Once the store has synced, every list is a relist; expired after a 410 Gone.
   */
  public static void listSynced(Object store, boolean synced) {
    try {
      if (!synced || !Fabric8Instrumentation.SWITCH.on()) {
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
    } catch (Throwable t) {
      AgentFaults.record(COMPONENT, t);
    }
  }

  /** The reflector's watch closed with an error; {@code gone} for 410 Gone. */
  public static void watchClosed(Object reflector, boolean gone) {
    try {
      if (!Fabric8Instrumentation.SWITCH.on()) {
        return;
      }
      Fabric8Informer informer = INFORMER_OF_REFLECTOR.get(reflector);
      if (informer == null && LateStart.attached()) {
        informer = LateFabric8Informers.informerOfReflector(reflector);
      }
      if (informer != null) {
        informer.watchGone = gone;
      }
    } catch (Throwable t) {
      AgentFaults.record(COMPONENT, t);
    }
  }

  // ---- where notifications are delivered -------------------------------------------------------

  /**
   * {@code ProcessorListener.add(notification)}: the listener's handler is called inside. Returns what
   * {@link #deliveryFinished} restores (the thread's previous listener), or {@link #NO_DELIVERY}.
   */
  public static Object deliveryStarting(Object listener, Object notification) {
    try {
      if (!Fabric8Instrumentation.SWITCH.on()) {
        return NO_DELIVERY;
      }
      Fabric8Listener state = LISTENERS.get(listener);
      if (state == null && LateStart.attached()) {
        state = LateFabric8Informers.listenerMet(listener, notification);
      }
      if (state == null) {
        return NO_DELIVERY;
      }
      state.notification = notification;
      return ThreadContext.current().runListener(state);
    } catch (Throwable t) {
      AgentFaults.record(COMPONENT, t);
      return NO_DELIVERY;
    }
  }

  public static void deliveryFinished(Object previous) {
    try {
      if (previous == NO_DELIVERY) {
        return;
      }
      ThreadContext context = ThreadContext.current();
      if (context.listener() instanceof Fabric8Listener delivering) {
        delivering.notification = null;
      }
      context.runListener((InformerListener) previous);
    } catch (Throwable t) {
      AgentFaults.record(COMPONENT, t);
    }
  }

  /**
   * A handler method starts. Returns the call for {@link #handlerCallFinished}, or null when this is
   * not the delivering listener's own handler being called by it (a delegate, a super call).
   */
  public static Object handlerCallStarting(Object handler, int type) {
    try {
      if (!Fabric8Instrumentation.SWITCH.on()) {
        return null;
      }
      ThreadContext context = ThreadContext.current();
      if (context.listener() instanceof Fabric8Listener state && state.callStarting(context, handler, TYPES[type])) {
        return state;
      }
      return null;
    } catch (Throwable t) {
      AgentFaults.record(COMPONENT, t);
      return null;
    }
  }

  /**
   * Classifies an update. fabric8 passes one instance as old and new only in a periodic resync; an
   * update made while a relist replaced the cache is a relist's; any other is a watch event's.
   */
  public static void updateSeen(Object call, boolean sameInstance, String oldVersion, String newVersion) {
    try {
      if (!Fabric8Instrumentation.SWITCH.on()) {
        return;
      }
      Fabric8Listener state = (Fabric8Listener) call;
      boolean relist = !sameInstance && !RELIST_UPDATES.isEmpty() && RELIST_UPDATES.get(state.notification) != null;
      state.updateSeen(sameInstance || relist, sameInstance, oldVersion, newVersion);
    } catch (Throwable t) {
      AgentFaults.record(COMPONENT, t);
    }
  }

  /** The handler method returned or threw. Not gated: a call opened while on is always closed. */
  public static void handlerCallFinished(Object call) {
    try {
      ((Fabric8Listener) call).callFinished(!Fabric8Instrumentation.SWITCH.isOff());
    } catch (Throwable t) {
      AgentFaults.record(COMPONENT, t);
    }
  }
}
