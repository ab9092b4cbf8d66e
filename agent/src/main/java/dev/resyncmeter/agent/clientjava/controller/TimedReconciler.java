package dev.resyncmeter.agent.clientjava.controller;

import static net.bytebuddy.matcher.ElementMatchers.isAbstract;
import static net.bytebuddy.matcher.ElementMatchers.named;

import dev.resyncmeter.agent.AgentFaults;
import dev.resyncmeter.agent.AgentMetrics;
import dev.resyncmeter.collector.QueueTracker;
import dev.resyncmeter.collector.ReconcileResult;
import dev.resyncmeter.collector.ResyncMetrics;
import dev.resyncmeter.collector.Trigger;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.ClassFileVersion;
import net.bytebuddy.description.modifier.Visibility;
import net.bytebuddy.dynamic.loading.ClassLoadingStrategy;
import net.bytebuddy.implementation.InvocationHandlerAdapter;

/**
 * Times a controller's reconciler, whether a class or a lambda, by standing in front of it as an
 * implementation of client-java's {@code Reconciler} interface. The reconciler's own result and
 * exceptions pass through untouched; the reconcile is attributed to the trigger of the item the
 * worker holds.
 *
 * <p>The stand-in class is generated, not a {@code java.lang.reflect.Proxy}: a proxy wraps a checked
 * exception that the interface does not declare (Kotlin and {@code @SneakyThrows} reconcilers throw
 * them) in an {@code UndeclaredThrowableException}, which would change what the host sees.
 */
final class TimedReconciler implements InvocationHandler {

  private static final ClassValue<Method> IS_REQUEUE =
      new ClassValue<>() {
        @Override
        protected Method computeValue(Class<?> type) {
          try {
            return type.getMethod("isRequeue");
          } catch (NoSuchMethodException e) {
            return null;
          }
        }
      };

  /** One stand-in class per {@code Reconciler} interface, defined beside it in a child loader. */
  private static final ClassValue<Class<?>> STAND_IN =
      new ClassValue<>() {
        @Override
        protected Class<?> computeValue(Class<?> reconcilerInterface) {
          return new ByteBuddy(ClassFileVersion.JAVA_V8)
              .subclass(Object.class)
              .name(reconcilerInterface.getName() + "$TimedByResyncMeter")
              .implement(reconcilerInterface)
              .defineField(HANDLER_FIELD, InvocationHandler.class, Visibility.PUBLIC)
              .method(isAbstract().or(named("toString")).or(named("hashCode")).or(named("equals")))
              .intercept(InvocationHandlerAdapter.toField(HANDLER_FIELD))
              .make()
              .load(reconcilerInterface.getClassLoader(), ClassLoadingStrategy.Default.WRAPPER)
              .getLoaded();
        }
      };

  private static final String HANDLER_FIELD = "timing";

  private final Object target;
  private final String controller;

  private TimedReconciler(Object target, String controller) {
    this.target = target;
    this.controller = controller;
  }

  /** The reconciler behind a timing stand-in; an already timed one is returned as it is. */
  static Object wrap(Object reconciler, String controller, Class<?> reconcilerInterface) throws ReflectiveOperationException {
    if (reconciler == null || !reconcilerInterface.isInterface()) {
      return reconciler;
    }
    Class<?> standIn = STAND_IN.get(reconcilerInterface);
    if (standIn.isInstance(reconciler)) {
      return reconciler;
    }
    Object timed = standIn.getDeclaredConstructor().newInstance();
    standIn.getField(HANDLER_FIELD).set(timed, new TimedReconciler(reconciler, controller));
    return timed;
  }

  @Override
  public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
    if (!"reconcile".equals(method.getName()) || args == null || args.length != 1) {
      return forward(method, args);
    }
    long start = System.nanoTime();
    Trigger trigger = triggerOfHeldItem();
    try {
      Object result = forward(method, args);
      record(trigger, requeue(result) ? ReconcileResult.REQUEUE : ReconcileResult.SUCCESS, start);
      return result;
    } catch (Throwable hostFault) {
      record(trigger, ReconcileResult.ERROR, start);
      throw hostFault;
    }
  }

  private Object forward(Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  private static Trigger triggerOfHeldItem() {
    try {
      QueueTracker.WorkerItem held = QueueTracker.currentWorkerItem();
      return held == null ? Trigger.OTHER : held.trigger();
    } catch (Throwable t) {
      AgentFaults.record(ControllerBridge.COMPONENT, t);
      return Trigger.OTHER;
    }
  }

  private void record(Trigger trigger, ReconcileResult result, long start) {
    try {
      if (!ControllerInstrumentation.SWITCH.on()) {
        return;
      }
      long nanos = System.nanoTime() - start;
      ResyncMetrics metrics = AgentMetrics.get();
      if (metrics != null) {
        metrics.controller(controller).reconciled(trigger, result, nanos);
      }
    } catch (Throwable t) {
      AgentFaults.record(ControllerBridge.COMPONENT, t);
    }
  }

  private static boolean requeue(Object result) {
    try {
      Method isRequeue = result == null ? null : IS_REQUEUE.get(result.getClass());
      return isRequeue != null && Boolean.TRUE.equals(isRequeue.invoke(result));
    } catch (Throwable t) {
      AgentFaults.record(ControllerBridge.COMPONENT, t);
      return false;
    }
  }
}
