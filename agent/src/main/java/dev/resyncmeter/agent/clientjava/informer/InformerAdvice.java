package dev.resyncmeter.agent.clientjava.informer;

import io.kubernetes.client.common.KubernetesObject;
import net.bytebuddy.asm.Advice;

/**
 * The advice woven into client-java's informer classes. Each piece is inlined into the host's class
 * (so it may name client-java types) and only hands what it sees to {@link InformerBridge}.
 * {@code suppress = Throwable.class}: a fault in the agent never reaches the host.
 */
final class InformerAdvice {

  private InformerAdvice() {}

  /** {@code DefaultSharedIndexInformer(Class, ListerWatcher, long, DeltaFIFO, Indexer, BiConsumer)}. */
  static final class InformerConstructor {
    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(
        @Advice.Argument(0) Class<?> apiType,
        @Advice.Argument(2) long resyncPeriodMillis,
        @Advice.Argument(3) Object deltaFifo,
        @Advice.FieldValue("processor") Object processor) {
      InformerBridge.informerCreated(apiType, resyncPeriodMillis, deltaFifo, processor);
    }
  }

  /** {@code DefaultSharedIndexInformer.handleDeltas(deltas)}: after an attach, where an older informer is met. */
  static final class HandleDeltas {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(
        @Advice.FieldValue("processor") Object processor,
        @Advice.FieldValue("controller") Object controller,
        @Advice.FieldValue("resyncCheckPeriodMillis") long resyncCheckPeriodMillis) throws ReflectiveOperationException {
      InformerBridge.deltasHandling(processor, controller, resyncCheckPeriodMillis);
    }
  }

  /** {@code ProcessorListener(ResourceEventHandler, long resyncPeriod)}. */
  static final class ListenerConstructor {
    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.This Object listener, @Advice.Argument(0) Object handler, @Advice.Argument(1) long resyncPeriod) {
      InformerBridge.listenerCreated(listener, handler, resyncPeriod);
    }
  }

  /** {@code SharedProcessor.addListenerLocked(ProcessorListener)}: both add paths go through it. */
  static final class AddListener {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.This Object processor, @Advice.Argument(0) Object listener) {
      InformerBridge.listenerAdded(processor, listener);
    }
  }

  /** {@code SharedProcessor.distribute(Notification, boolean isSync)}. */
  static final class Distribute {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.Argument(0) Object notification, @Advice.Argument(1) boolean isSync) throws ReflectiveOperationException {
      InformerBridge.distributeStarting(notification, isSync);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.This Object processor, @Advice.Argument(0) Object notification, @Advice.Argument(1) boolean isSync) throws ReflectiveOperationException {
      InformerBridge.distributeFinished(processor, notification, isSync);
    }
  }

  /** {@code ProcessorListener.add(Notification)}. */
  static final class ListenerAdd {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter() {
      InformerBridge.notificationQueued();
    }
  }

  /** {@code ProcessorListener.run()}: the listener's thread, for as long as it lives. */
  static final class ListenerRun {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.This Object listener) {
      InformerBridge.listenerThreadStarted(listener);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit() {
      InformerBridge.listenerThreadStopped();
    }
  }

  /**
   * {@code UpdateNotification.getNewObj()}, read by the listener right before {@code onUpdate}: the
   * versions are read here, where client-java's types can be named, for the call site that follows.
   */
  static final class UpdateTaken {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.This Object notification, @Advice.FieldValue("oldObj") Object oldObj, @Advice.FieldValue("newObj") Object newObj) {
      String oldVersion = null;
      if (oldObj instanceof KubernetesObject && ((KubernetesObject) oldObj).getMetadata() != null) {
        oldVersion = ((KubernetesObject) oldObj).getMetadata().getResourceVersion();
      }
      String newVersion = oldVersion;
      if (newObj != oldObj) {
        newVersion = null;
        if (newObj instanceof KubernetesObject && ((KubernetesObject) newObj).getMetadata() != null) {
          newVersion = ((KubernetesObject) newObj).getMetadata().getResourceVersion();
        }
      }
      InformerBridge.updateTaken(notification, newObj, oldVersion, newVersion);
    }
  }

  /** {@code DeltaFIFO.resync()}. */
  static final class Resync {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.This Object deltaFifo) {
      InformerBridge.resyncTick(deltaFifo);
    }
  }

  /** {@code ReflectorRunnable.syncWith(List, String)}: every successful list replaces the cache. */
  static final class SyncWith {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(
        @Advice.FieldValue("apiTypeClass") Class<?> apiType,
        @Advice.FieldValue("lastSyncResourceVersion") String lastSyncResourceVersion,
        @Advice.FieldValue("isLastSyncResourceVersionUnavailable") boolean versionExpired) {
      InformerBridge.listReplacing(apiType, lastSyncResourceVersion, versionExpired);
    }
  }

  /** {@code onUpdate(old, new)} of any {@code ResourceEventHandler}. */
  static final class HandlerUpdate {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static Object enter(@Advice.This Object handler, @Advice.Argument(0) Object oldObj, @Advice.Argument(1) Object newObj) {
      // read before the call opens: a fault here then leaves no call open
      String oldVersion = null;
      String newVersion = null;
      if (oldObj instanceof KubernetesObject && ((KubernetesObject) oldObj).getMetadata() != null) {
        oldVersion = ((KubernetesObject) oldObj).getMetadata().getResourceVersion();
      }
      if (newObj instanceof KubernetesObject && ((KubernetesObject) newObj).getMetadata() != null) {
        newVersion = ((KubernetesObject) newObj).getMetadata().getResourceVersion();
      }
      return InformerBridge.updateCallStarting(handler, oldObj == newObj, oldVersion, newVersion, newObj);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter Object call) {
      InformerBridge.handlerCallFinished(call);
    }
  }

  /** {@code onAdd(obj)} and {@code onDelete(obj, deletedFinalStateUnknown)} of any {@code ResourceEventHandler}. */
  static final class HandlerAddOrDelete {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static Object enter(@Advice.This Object handler, @Advice.Origin("#m") String method) {
      return InformerBridge.handlerCallStarting(handler, method);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter Object call) {
      InformerBridge.handlerCallFinished(call);
    }
  }
}
