package dev.resyncmeter.agent.clientjava.controller;

import dev.resyncmeter.agent.AgentFaults;
import dev.resyncmeter.agent.clientjava.HandlerNames;
import dev.resyncmeter.agent.clientjava.informer.InformerBridge;

/** What the controller advice calls; faults stay here. */
public final class ControllerBridge {

  static final String COMPONENT = "clientjava-controller";

  private ControllerBridge() {}

  public static void watchHandlerCreated(Object handler, Object workQueue) {
    try {
      HandlerNames.controllerWatchHandler(handler, workQueue);
    } catch (Throwable t) {
      AgentFaults.record(COMPONENT, t);
    }
  }

  public static void controllerBuilt(String name, Object workQueue) {
    try {
      HandlerNames.controllerBuilt(name, workQueue);
      InformerBridge.resolvePendingHandlers();
    } catch (Throwable t) {
      AgentFaults.record(COMPONENT, t);
    }
  }
}
