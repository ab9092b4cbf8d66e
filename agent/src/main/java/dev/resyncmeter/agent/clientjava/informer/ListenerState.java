package dev.resyncmeter.agent.clientjava.informer;

import dev.resyncmeter.agent.ClassLabels;
import dev.resyncmeter.agent.AgentMetrics;
import dev.resyncmeter.agent.HandlerOnThread;
import dev.resyncmeter.agent.clientjava.HandlerNames;
import dev.resyncmeter.collector.HandlerMetrics;
import dev.resyncmeter.collector.NotificationType;
import dev.resyncmeter.collector.ResyncMetrics;
import dev.resyncmeter.collector.ThreadContext;
import dev.resyncmeter.collector.UpdateCause;

/**
 * What the agent knows of one client-java {@code ProcessorListener}: its handler, the informer it
 * serves, and the handler call in progress on its thread. The call fields are touched only by the
 * listener's own thread, so they need no lock.
 */
final class ListenerState implements HandlerOnThread {

  final Object handler;
  final long listenerPeriodMillis;
  volatile InformerState informer;
  private volatile HandlerMetrics metrics;

  // The listener thread's current call.
  /** The listener thread's context, where its handler call's queue adds are counted. */
  ThreadContext context;
  Object currentNotification;
  boolean inCall;
  NotificationType callType;
  UpdateCause cause;
  boolean unchanged;

  ListenerState(Object handler, long listenerPeriodMillis) {
    this.handler = handler;
    this.listenerPeriodMillis = listenerPeriodMillis;
  }

  String kind() {
    InformerState informer = this.informer;
    return informer == null ? "unknown" : informer.kind;
  }

  /**
   * The handler's meters. While the handler waits for its controller to be built it is counted under
   * its class name; once the label is final it is cached.
   */
  HandlerMetrics metrics() {
    HandlerMetrics resolved = metrics;
    if (resolved != null) {
      return resolved;
    }
    resolved = resolve();
    return resolved != null ? resolved : AgentMetrics.get().handler(kind(), ClassLabels.of(handler.getClass()));
  }

  @Override
  public String handlerLabel() {
    return metrics().handler();
  }

  /** Fixes the label if it is known now and publishes the resync period gauge; null if still pending. */
  HandlerMetrics resolve() {
    ResyncMetrics registry = AgentMetrics.get();
    String label = HandlerNames.labelOrPending(handler);
    if (label == null || registry == null || informer == null) {
      return null;
    }
    HandlerMetrics resolved = registry.handler(kind(), label);
    resolved.resyncPeriodMillis(effectiveResyncPeriodMillis());
    metrics = resolved;
    return resolved;
  }

  boolean resolved() {
    return metrics != null;
  }

  /**
   * The period at which this handler really gets resyncs. The informer's timer ticks every check
   * period (none when it is 0) and a listener is due at the first tick after its own period.
   */
  long effectiveResyncPeriodMillis() {
    long tick = informer == null ? 0 : informer.resyncCheckPeriodMillis;
    long own = listenerPeriodMillis;
    if (tick <= 0 || own <= 0) {
      return 0;
    }
    return ((own + tick - 1) / tick) * tick;
  }
}
