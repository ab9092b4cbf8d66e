package dev.resyncmeter.agent.clientjava.controller;

import dev.resyncmeter.agent.runtime.AgentFaults;
import dev.resyncmeter.collector.ThreadContext;
import io.kubernetes.client.extended.controller.reconciler.Reconciler;
import io.kubernetes.client.extended.controller.reconciler.Request;
import io.kubernetes.client.extended.controller.reconciler.Result;

/**
 * The timing stand-in for client-java's {@code Reconciler} as it is declared (one abstract method,
 * {@code reconcile(Request)}): compiled with the agent, never loaded by the agent's own class loader
 * (the build moves its class file to a resource, see the agent's pom).
 * {@link TimedReconciler} defines a copy of its class file beside each {@code Reconciler} interface
 * it meets, so it links against the host's client-java wherever that is loaded from (a Spring Boot
 * or Quarkus class loader the agent's loader cannot see). Only public members of the agent are used:
 * the copy is in another class loader's package.
 *
 * <p>What it does is what the advice of a generated stand-in would do: the reconciler's own result
 * and exceptions pass through untouched (a checked exception the interface does not declare is not
 * wrapped), and a fault of the agent's counts as one and never reaches the controller.
 */
public final class TimedReconcilerStandIn implements Reconciler {

  public Reconciler target;
  public ReconcileTimer timer;

  @Override
  public Result reconcile(Request request) {
    ThreadContext context = null;
    long start = 0;
    try {
      context = ThreadContext.current();
      start = timer.started(context);
    } catch (Throwable fault) {
      AgentFaults.adviceFault(fault, ControllerBridge.SWITCH.component());
    }
    Result result;
    try {
      result = target.reconcile(request);
    } catch (Throwable thrown) {
      finished(context, start, false, true);
      throw thrown;
    }
    finished(context, start, result != null && result.isRequeue(), false);
    return result;
  }

  private void finished(ThreadContext context, long start, boolean requeue, boolean threw) {
    try {
      timer.finished(context, start, requeue, threw);
    } catch (Throwable fault) {
      AgentFaults.adviceFault(fault, ControllerBridge.SWITCH.component());
    }
  }

  @Override
  public boolean equals(Object other) {
    return target.equals(other);
  }

  @Override
  public int hashCode() {
    return target.hashCode();
  }

  @Override
  public String toString() {
    return target.toString();
  }
}
