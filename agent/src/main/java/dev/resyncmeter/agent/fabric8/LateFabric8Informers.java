package dev.resyncmeter.agent.fabric8;

import dev.resyncmeter.agent.runtime.AgentMetrics;
import dev.resyncmeter.agent.runtime.Fields;
import dev.resyncmeter.agent.runtime.IdentityWeakMap;
import dev.resyncmeter.collector.ResyncMetrics;
import java.util.concurrent.atomic.AtomicLong;

/**
 * fabric8 informers and listeners made before the agent was attached, found where they are next
 * used. fabric8 calls a handler inside each {@code ProcessorListener.add}, so a listener is met at its
 * next delivery; an informer, at the next notification its processor distributes. The kind is the
 * class of the objects they carry, as the informer's type would have told (fabric8's model classes
 * are named after their kinds).
 */
final class LateFabric8Informers {

  /** Resync ticks of a processor not met yet: the resync's own notifications introduce it next. */
  private static final IdentityWeakMap<AtomicLong> PENDING_RESYNCS = new IdentityWeakMap<>();

  private LateFabric8Informers() {}

  /** The processor distributes a notification: met for the first time, it is registered by the kind it carries. */
  static synchronized Fabric8Informer processorMet(Object processor, Object notification) throws ReflectiveOperationException {
    Fabric8Informer informer = Fabric8Bridge.INFORMER_OF_PROCESSOR.get(processor);
    ResyncMetrics metrics = AgentMetrics.get();
    if (informer != null || metrics == null) {
      return informer;
    }
    String kind = kindOf(notification);
    informer = new Fabric8Informer(kind, metrics.informer(kind));
    Fabric8Bridge.INFORMER_OF_PROCESSOR.put(processor, informer);
    AtomicLong pending = PENDING_RESYNCS.remove(processor);
    for (long n = pending == null ? 0 : pending.get(); n > 0; n--) {
      informer.metrics.resync();
    }
    return informer;
  }

  /** The informer of a store made before the attach, once its processor was met; else null. */
  static Fabric8Informer informerOfStore(Object store) throws ReflectiveOperationException {
    Fabric8Informer informer = Fabric8Bridge.INFORMER_OF_PROCESSOR.get(Fields.read(store, "processor"));
    if (informer != null) {
      Fabric8Bridge.INFORMER_OF_STORE.put(store, informer);
    }
    return informer;
  }

  /** A resync of a store whose processor was not met yet: counted when it is, by the notifications that follow. */
  static synchronized void resyncOfUnknownStore(Object store) throws ReflectiveOperationException {
    Object processor = Fields.read(store, "processor");
    Fabric8Informer informer = Fabric8Bridge.INFORMER_OF_PROCESSOR.get(processor);
    if (informer != null) {
      informer.metrics.resync();
    } else {
      PENDING_RESYNCS.computeIfAbsent(processor, p -> new AtomicLong()).incrementAndGet();
    }
  }

  /** The informer of a reflector made before the attach, once its processor was met; else null. */
  static Fabric8Informer informerOfReflector(Object reflector) throws ReflectiveOperationException {
    Fabric8Informer informer = informerOfStore(Fields.read(reflector, "store"));
    if (informer != null) {
      Fabric8Bridge.INFORMER_OF_REFLECTOR.put(reflector, informer);
    }
    return informer;
  }

  /** A listener made before the attach delivers {@code notification}: registered from its own fields. */
  static Fabric8Listener listenerMet(Object listener, Object notification) throws ReflectiveOperationException {
    ResyncMetrics metrics = AgentMetrics.get();
    Object handler = Fields.read(listener, "handler");
    if (metrics == null || handler == null) {
      return null;
    }
    Fabric8Listener state =
        new Fabric8Listener(handler, metrics.handler(kindOf(notification), Fabric8Handlers.label(handler)), Fabric8Handlers.handsWorkToObservedQueue(handler));
    state.metrics().resyncPeriodMillis((Long) Fields.read(listener, "resyncPeriodInMillis"));
    Fabric8Bridge.LISTENERS.put(listener, state);
    return state;
  }

  private static String kindOf(Object notification) throws ReflectiveOperationException {
    Object object = Fields.read(notification, "newObject");
    if (object == null) {
      object = Fields.read(notification, "oldObject");
    }
    return object == null ? "unknown" : object.getClass().getSimpleName();
  }
}
