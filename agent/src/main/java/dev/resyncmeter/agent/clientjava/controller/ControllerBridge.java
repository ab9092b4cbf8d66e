package dev.resyncmeter.agent.clientjava.controller;

import dev.resyncmeter.agent.clientjava.ClientJava;
import dev.resyncmeter.agent.clientjava.HandlerNames;
import dev.resyncmeter.agent.clientjava.WorkQueues;
import dev.resyncmeter.agent.clientjava.informer.InformerBridge;
import dev.resyncmeter.agent.runtime.AgentMetrics;
import dev.resyncmeter.agent.runtime.LateStart;
import dev.resyncmeter.agent.runtime.UnitSwitch;
import dev.resyncmeter.collector.ResyncMetrics;
import dev.resyncmeter.collector.ThreadContext;

/** What the controller advice calls; faults stay here. */
public final class ControllerBridge {

  /** The switch of the part this belongs to. */
  static final UnitSwitch SWITCH = ClientJava.CONTROLLER.unitSwitch();
  private static final String DEFAULT_CONTROLLER = ControllerInstrumentation.PACKAGE + "DefaultController";
  private static final StackWalker STACK = StackWalker.getInstance();

  private ControllerBridge() {}

  public static void watchHandlerCreated(Object handler, Object workQueue) {
    if (!SWITCH.on()) {
      return;
    }
    HandlerNames.controllerWatchHandler(handler, workQueue);
  }

  /** Puts a timing stand-in in front of the reconciler a controller is being built with. */
  public static Object timedReconciler(Object reconciler, String name, Class<?> reconcilerInterface)
      throws ReflectiveOperationException {
    ResyncMetrics metrics = AgentMetrics.get();
    if (!SWITCH.on() || metrics == null) {
      return reconciler;
    }
    return TimedReconciler.wrap(reconciler, metrics.controller(name), reconcilerInterface);
  }

  /** A {@code Result(requeue)} was made; one made by the controller's worker loop means the reconcile threw. */
  public static void resultMade(boolean requeue) {
    if (!requeue || !LateStart.attached() || !SWITCH.on()) {
      return;
    }
    if (STACK.walk(frames -> frames.limit(4).anyMatch(f -> f.getMethodName().equals("worker") && f.getClassName().equals(DEFAULT_CONTROLLER)))) {
      ThreadContext.current().held().reconcileThrew();
    }
  }

  public static void controllerBuilt(String name, Object workQueue) {
    if (!SWITCH.on()) {
      return;
    }
    HandlerNames.controllerBuilt(name, workQueue);
    WorkQueues.controllerOwns(workQueue, name);
    InformerBridge.resolvePendingHandlers();
  }
}
