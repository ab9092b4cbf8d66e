package dev.resyncmeter.agent.clientjava.controller;

import dev.resyncmeter.agent.AgentFaults;
import dev.resyncmeter.agent.AgentMetrics;
import dev.resyncmeter.collector.QueueTracker;
import dev.resyncmeter.collector.ReconcileResult;
import dev.resyncmeter.collector.ResyncMetrics;
import dev.resyncmeter.collector.Trigger;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

/**
 * Times a controller's reconciler, whether a class or a lambda, by standing in front of it as a
 * proxy of client-java's {@code Reconciler} interface. The reconciler's own result and exceptions
 * pass through untouched; the reconcile is attributed to the trigger of the item the worker holds.
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

  private final Object target;
  private final String controller;

  private TimedReconciler(Object target, String controller) {
    this.target = target;
    this.controller = controller;
  }

  /** The reconciler behind a timing proxy; an already timed one is returned as it is. */
  static Object wrap(Object reconciler, String controller, Class<?> reconcilerInterface) {
    if (reconciler == null || !reconcilerInterface.isInterface()) {
      return reconciler;
    }
    if (Proxy.isProxyClass(reconciler.getClass()) && Proxy.getInvocationHandler(reconciler) instanceof TimedReconciler) {
      return reconciler;
    }
    return Proxy.newProxyInstance(
        reconcilerInterface.getClassLoader(), new Class<?>[] {reconcilerInterface}, new TimedReconciler(reconciler, controller));
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
