package dev.resyncmeter.agent.fabric8;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.informers.impl.cache.ProcessorListener;
import java.util.concurrent.atomic.AtomicBoolean;
import net.bytebuddy.asm.Advice;

/**
 * The advice woven into fabric8's informer classes and handlers. Each piece is inlined into the
 * host's class and only hands what it sees to {@link Fabric8Bridge}. Its signatures take {@code Object}
 * for every fabric8 type, cast where it is used: ByteBuddy and the verifier read this class in the
 * agent's loader, which cannot see fabric8 in a Quarkus or Spring Boot host (LoadsWithoutTheLibrariesIT).
 * {@code suppress = Throwable.class}: a fault in the agent never reaches the host.
 */
final class Fabric8Advice {

  private Fabric8Advice() {}

  /** {@code DefaultSharedIndexInformer(Class, ListerWatcher, long resyncPeriod, Executor)}. */
  static final class InformerConstructor {
    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(
        @Advice.FieldValue("apiTypeClass") Class<?> apiType,
        @Advice.FieldValue("processor") Object processor,
        @Advice.FieldValue("processorStore") Object store,
        @Advice.FieldValue("reflector") Object reflector) {
      Fabric8Bridge.informerCreated(apiType, processor, store, reflector);
    }
  }

  /** {@code SharedProcessor.addProcessorListener(handler, resyncPeriod, initialItems)}. */
  static final class AddProcessorListener {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.This Object processor) {
      Fabric8Bridge.listenerAdding(processor);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit() {
      Fabric8Bridge.listenerAdded();
    }
  }

  /** {@code ProcessorListener(ResourceEventHandler, long resyncPeriodInMillis)}. */
  static final class ListenerConstructor {
    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.This Object listener, @Advice.Argument(0) Object handler, @Advice.Argument(1) long resyncPeriodMillis) throws ReflectiveOperationException {
      Fabric8Bridge.listenerCreated(listener, handler, resyncPeriodMillis);
    }
  }

  /** {@code ProcessorListener.add(Notification)}: delivers one notification to the listener's handler. */
  static final class Delivery {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static Object enter(@Advice.This Object listener, @Advice.Argument(0) Object notification) throws ReflectiveOperationException {
      return Fabric8Bridge.deliveryStarting(listener, notification);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter Object previous) {
      Fabric8Bridge.deliveryFinished(previous);
    }
  }

  /**
   * {@code ProcessorListener.add(Notification)} again, inside {@link Delivery}: its {@code
   * notification.handle(handler)} calls the handler's method, measured here as the handler advice
   * would (which is woven only after an attach), without weaving the host's handler classes.
   */
  static final class HandlerCallSite {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static Object enter(@Advice.FieldValue("handler") Object handler, @Advice.Argument(0) Object notification) {
      if (!(notification instanceof ProcessorListener.UpdateNotification)) {
        return Fabric8Bridge.addOrDeleteAtCallSite(
            handler,
            notification instanceof ProcessorListener.AddNotification ? "onAdd" : notification instanceof ProcessorListener.DeleteNotification ? "onDelete" : null);
      }
      Object oldObj = ((ProcessorListener.Notification<?>) notification).getOldObject();
      Object newObj = ((ProcessorListener.Notification<?>) notification).getNewObject();
      // as HandlerUpdate reads them
      String oldVersion = null;
      String newVersion = null;
      if (oldObj instanceof HasMetadata && ((HasMetadata) oldObj).getMetadata() != null) {
        oldVersion = ((HasMetadata) oldObj).getMetadata().getResourceVersion();
      }
      if (newObj instanceof HasMetadata && ((HasMetadata) newObj).getMetadata() != null) {
        newVersion = ((HasMetadata) newObj).getMetadata().getResourceVersion();
      }
      return Fabric8Bridge.updateAtCallSite(handler, oldObj == newObj, oldVersion, newVersion, newObj);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter Object call) {
      Fabric8Bridge.handlerCallFinished(call);
    }
  }

  /** {@code SharedProcessor.distribute(Notification, boolean isSync)}. */
  static final class Distribute {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.This Object processor, @Advice.Argument(0) Object notification) throws ReflectiveOperationException {
      Fabric8Bridge.distributing(processor, notification);
    }
  }

  /** {@code ProcessorStore.update(List)}: one page of a list replaces cached objects. */
  static final class ListPage {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.FieldValue("synced") AtomicBoolean synced) {
      Fabric8Bridge.listPageStarting(synced.get());
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit() {
      Fabric8Bridge.listPageFinished();
    }
  }

  /** {@code ProcessorStore.syncList(Set)} (7.x and later) or {@code retainAll(Set, Consumer)} (7.0). */
  static final class ListSynced {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.This Object store, @Advice.FieldValue("synced") AtomicBoolean synced) throws ReflectiveOperationException {
      Fabric8Bridge.listSynced(store, synced.get());
    }
  }

  /** {@code ProcessorStore.resync()}. */
  static final class Resync {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.This Object store) throws ReflectiveOperationException {
      Fabric8Bridge.resync(store);
    }
  }

  /** {@code Reflector$ReflectorWatcher.onClose(WatcherException)}. */
  static final class WatchClosed {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.FieldValue("this$0") Object reflector, @Advice.Argument(0) Object exception) throws ReflectiveOperationException {
      Fabric8Bridge.watchClosed(reflector, exception instanceof WatcherException && ((WatcherException) exception).isHttpGone());
    }
  }

  /** {@code onUpdate(old, new)} of any fabric8 {@code ResourceEventHandler}, woven after an attach. */
  static final class HandlerUpdate {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static Object enter(@Advice.This Object handler, @Advice.Argument(0) Object oldObj, @Advice.Argument(1) Object newObj) {
      // read before the call opens: a fault here then leaves no call open
      String oldVersion = null;
      String newVersion = null;
      if (oldObj instanceof HasMetadata && ((HasMetadata) oldObj).getMetadata() != null) {
        oldVersion = ((HasMetadata) oldObj).getMetadata().getResourceVersion();
      }
      if (newObj instanceof HasMetadata && ((HasMetadata) newObj).getMetadata() != null) {
        newVersion = ((HasMetadata) newObj).getMetadata().getResourceVersion();
      }
      return Fabric8Bridge.updateCallStarting(handler, oldObj == newObj, oldVersion, newVersion, newObj);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter Object call) {
      Fabric8Bridge.handlerCallFinished(call);
    }
  }

  /** {@code onAdd(obj)} and {@code onDelete(obj, deletedFinalStateUnknown)} of any fabric8 {@code ResourceEventHandler}, after an attach. */
  static final class HandlerAddOrDelete {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static Object enter(@Advice.This Object handler, @Advice.Origin("#m") String method) {
      return Fabric8Bridge.handlerCallStarting(handler, method);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter Object call) {
      Fabric8Bridge.handlerCallFinished(call);
    }
  }
}
