package dev.resyncmeter.agent.clientjava.informer;

import dev.resyncmeter.agent.clientjava.KindNames;
import dev.resyncmeter.agent.runtime.AgentMetrics;
import dev.resyncmeter.agent.runtime.Fields;
import dev.resyncmeter.agent.runtime.IdentityWeakMap;
import dev.resyncmeter.collector.ResyncMetrics;
import dev.resyncmeter.collector.ThreadContext;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReadWriteLock;

/**
 * Informers and listeners made before the agent was attached. Their constructors ran without it, and
 * each listener's thread entered its loop before: so an informer is introduced by the first batch of
 * deltas it handles, with every listener its processor has, and a listener's thread by the first call
 * of that listener's handler that comes straight from {@code ProcessorListener.run}.
 */
final class LateInformers {

  private static final String LISTENER_CLASS = "io.kubernetes.client.informer.cache.ProcessorListener";
  /** A handler that two listeners share: its thread cannot be told by the handler alone. */
  private static final Object SHARED_HANDLER = new Object();

  /** Each pre-attach listener's handler, to find the listener a thread runs (or SHARED_HANDLER). */
  private static final IdentityWeakMap<Object> LISTENER_OF_HANDLER = new IdentityWeakMap<>();
  /** Resync ticks of a DeltaFIFO whose informer was not introduced yet. */
  private static final IdentityWeakMap<AtomicLong> PENDING_RESYNCS = new IdentityWeakMap<>();
  /** The update notification a not yet known listener thread read, for the handler call that follows. */
  private static final ThreadLocal<Object> TAKEN_UPDATE = new ThreadLocal<>();
  private static final StackWalker STACK = StackWalker.getInstance();

  private LateInformers() {}

  /**
   * {@code DefaultSharedIndexInformer.handleDeltas}: an informer the agent does not know yet was made
   * before the attach. It is registered with its listeners before it distributes these deltas.
   */
  static void deltasHandling(Object processor, Object controller, long resyncCheckPeriodMillis) throws ReflectiveOperationException {
    if (InformerBridge.INFORMER_OF_PROCESSOR.get(processor) != null) {
      return;
    }
    ResyncMetrics metrics = AgentMetrics.get();
    if (metrics == null) {
      return;
    }
    synchronized (LateInformers.class) {
      if (InformerBridge.INFORMER_OF_PROCESSOR.get(processor) != null) {
        return;
      }
      String kind = KindNames.of((Class<?>) Fields.read(controller, "apiTypeClass"));
      Object fifo = Fields.read(controller, "queue");
      InformerState informer = new InformerState(kind, resyncCheckPeriodMillis, metrics.informer(kind));
      for (Object listener : listenersOf(processor)) {
        ListenerState state = InformerBridge.LISTENERS.get(listener);
        if (state == null) {
          state = new ListenerState(Fields.read(listener, "handler"), (Long) Fields.read(listener, "resyncPeriod"));
          InformerBridge.LISTENERS.put(listener, state);
          Object other = LISTENER_OF_HANDLER.get(state.handler());
          LISTENER_OF_HANDLER.put(state.handler(), other == null || other == state ? state : SHARED_HANDLER);
        }
        if (state.informer == null) {
          state.informer = informer;
          state.resolve();
        }
      }
      InformerBridge.INFORMER_OF_FIFO.put(fifo, informer);
      InformerBridge.INFORMER_OF_PROCESSOR.put(processor, informer);
      countPendingResyncs(fifo, informer);
    }
  }

  /** The processor's listeners, read under its lock as its own methods read them. */
  private static List<Object> listenersOf(Object processor) throws ReflectiveOperationException {
    ReadWriteLock lock = (ReadWriteLock) Fields.read(processor, "lock");
    lock.readLock().lock();
    try {
      List<?> listeners = (List<?>) Fields.read(processor, "listeners");
      return listeners == null ? List.of() : new ArrayList<>(listeners);
    } finally {
      lock.readLock().unlock();
    }
  }

  /** A resync tick of a DeltaFIFO whose informer is not introduced yet: it is, by the deltas the tick makes. */
  static void resyncOfUnknownFifo(Object fifo) {
    PENDING_RESYNCS.computeIfAbsent(fifo, f -> new AtomicLong()).incrementAndGet();
    InformerState informer = InformerBridge.INFORMER_OF_FIFO.get(fifo);
    if (informer != null) {
      // introduced meanwhile: the tick would otherwise wait for nothing
      countPendingResyncs(fifo, informer);
    }
  }

  private static void countPendingResyncs(Object fifo, InformerState informer) {
    AtomicLong pending = PENDING_RESYNCS.get(fifo);
    for (long n = pending == null ? 0 : pending.getAndSet(0); n > 0; n--) {
      informer.metrics.resync();
    }
  }

  /** A listener thread not known yet read an update notification; its handler call comes next. */
  static void updateTakenOnUnknownThread(Object notification) {
    TAKEN_UPDATE.set(notification);
  }

  /**
   * A handler is called on a thread that runs no known listener. When the handler is a pre-attach
   * listener's own and the call comes straight from that listener's loop, the thread is that
   * listener's from now on. Returns the listener, or null for any other call.
   */
  static ListenerState listenerThreadFound(ThreadContext context, Object handler) {
    if (!(LISTENER_OF_HANDLER.get(handler) instanceof ListenerState state) || !calledFromListenerLoop()) {
      return null;
    }
    context.runListener(state);
    state.currentNotification = TAKEN_UPDATE.get();
    TAKEN_UPDATE.remove();
    return state;
  }

  /** This frame, the bridge, the handler method, perhaps its bridge method, then the listener's run. */
  private static boolean calledFromListenerLoop() {
    return STACK.walk(frames -> frames.limit(8).anyMatch(f -> f.getMethodName().equals("run") && f.getClassName().equals(LISTENER_CLASS)));
  }
}
