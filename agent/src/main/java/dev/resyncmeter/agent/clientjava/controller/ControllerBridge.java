package dev.resyncmeter.agent.clientjava.controller;

import dev.resyncmeter.agent.AgentFaults;
import dev.resyncmeter.agent.AgentMetrics;
import dev.resyncmeter.collector.ResyncMetrics;
import dev.resyncmeter.agent.clientjava.HandlerNames;
import dev.resyncmeter.agent.clientjava.informer.InformerBridge;
import dev.resyncmeter.agent.clientjava.workqueue.WorkQueueBridge;

/** What the controller advice calls; faults stay here. */
public final class ControllerBridge {

  static final String COMPONENT = "clientjava-controller";

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
