package dev.resyncmeter.agent.clientjava.controller;

import dev.resyncmeter.agent.AgentFaults;
import dev.resyncmeter.agent.AgentMetrics;
import dev.resyncmeter.collector.ResyncMetrics;
import dev.resyncmeter.agent.LateStart;
import dev.resyncmeter.agent.clientjava.HandlerNames;
import dev.resyncmeter.agent.clientjava.LateControllers;
import dev.resyncmeter.collector.ControllerMetrics;
import dev.resyncmeter.collector.ReconcileResult;
import dev.resyncmeter.collector.ThreadContext;
import dev.resyncmeter.agent.clientjava.informer.InformerBridge;
import dev.resyncmeter.agent.clientjava.workqueue.WorkQueueBridge;

/** What the controller advice calls; faults stay here. */
public final class ControllerBridge {

  static final String COMPONENT = "clientjava-controller";
  private static final String DEFAULT_CONTROLLER = ControllerInstrumentation.PACKAGE + "DefaultController";
  private static final StackWalker STACK = StackWalker.getInstance();

  private ControllerBridge() {}

  public static void watchHandlerCreated(Object handler, Object workQueue) {
    try {
      if (!ControllerInstrumentation.SWITCH.on()) {
        return;
      }
      HandlerNames.controllerWatchHandler(handler, workQueue);
    } catch (Throwable t) {
      AgentFaults.record(COMPONENT, t);
    }
  }

  /** Puts a timing stand-in in front of the reconciler a controller is being built with. */
  public static Object timedReconciler(Object reconciler, String name, Class<?> reconcilerInterface) {
    try {
      ResyncMetrics metrics = AgentMetrics.get();
      if (!ControllerInstrumentation.SWITCH.on() || metrics == null) {
        return reconciler;
      }
      return TimedReconciler.wrap(reconciler, metrics.controller(name), reconcilerInterface);
    } catch (Throwable t) {
      AgentFaults.record(COMPONENT, t);
      return reconciler;
    }
  }

  /** A {@code Result(requeue)} was made; one made by the controller's worker loop means the reconcile threw. */
  public static void resultMade(boolean requeue) {
    try {
      if (!requeue || !LateStart.attached() || !ControllerInstrumentation.SWITCH.on()) {
        return;
      }
      if (STACK.walk(frames -> frames.limit(4).anyMatch(f -> f.getMethodName().equals("worker") && f.getClassName().equals(DEFAULT_CONTROLLER)))) {
        ThreadContext.current().heldReconcileThrew = true;
      }
    } catch (Throwable t) {
      AgentFaults.record(COMPONENT, t);
    }
  }

  /**
   * A worker took an item from {@code queue}. For a controller built before the attach, whose
   * reconciler the agent could not wrap, that starts the reconcile: the API requests the worker sends
   * until the done of the item count under it, as those a wrapped reconciler sends.
   */
  public static void workTaken(Object queue, ThreadContext context) {
    try {
      ControllerMetrics reconciles = LateControllers.reconcilesOf(queue);
      if (reconciles != null && ControllerInstrumentation.SWITCH.on()) {
        context.reconcileBegan(reconciles, context.heldTrigger());
      }
    } catch (Throwable t) {
      AgentFaults.record(COMPONENT, t);
    }
  }

  /**
   * A worker is done with the item it took from {@code queue}. For a controller built before the
   * attach, whose reconciler the agent could not wrap, that ends the reconcile: it ran from get to done.
   */
  public static void workDone(Object queue, ThreadContext context) {
    try {
      ControllerMetrics reconciles = LateControllers.reconcilesOf(queue);
      if (reconciles == null) {
        return;
      }
      // first: whatever happens below, no later request of this thread counts under this reconcile
      context.reconcileOver(context.heldTrigger());
      if (!ControllerInstrumentation.SWITCH.on()) {
        return;
      }
      ReconcileResult result =
          context.heldReconcileThrew ? ReconcileResult.ERROR : context.heldRequeued() ? ReconcileResult.REQUEUE : ReconcileResult.SUCCESS;
      reconciles.reconciled(context.heldTrigger(), result, System.nanoTime() - context.heldSince());
      reconciles.reconcileEffect(context.heldTrigger(), context.takeReconcileEffect());
    } catch (Throwable t) {
      AgentFaults.record(COMPONENT, t);
    }
  }

  public static void controllerBuilt(String name, Object workQueue) {
    try {
      if (!ControllerInstrumentation.SWITCH.on()) {
        return;
      }
      HandlerNames.controllerBuilt(name, workQueue);
      WorkQueueBridge.controllerOwns(workQueue, name);
      InformerBridge.resolvePendingHandlers();
    } catch (Throwable t) {
      AgentFaults.record(COMPONENT, t);
    }
  }
}
