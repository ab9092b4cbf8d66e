package dev.resyncmeter.agent.clientjava.informer;

import dev.resyncmeter.agent.clientjava.HandlerNames;
import dev.resyncmeter.agent.runtime.AgentMetrics;
import dev.resyncmeter.agent.runtime.ClassLabels;
import dev.resyncmeter.collector.HandlerMetrics;
import dev.resyncmeter.collector.InformerListener;
import dev.resyncmeter.collector.ResyncMetrics;

/**
 * What the agent knows of one client-java {@code ProcessorListener}: its handler, the informer it
 * serves, and the update notification its thread took last (touched only by that thread).
 */
final class ListenerState extends InformerListener {

  final long listenerPeriodMillis;
  volatile InformerState informer;
  private volatile HandlerMetrics metrics;

  /** The update notification the listener thread took, read before it calls the handler with it. */
  Object currentNotification;

  /** Whether a handler call opened at {@code run()}'s call site is still open (listener thread only). */
  boolean callSiteOpen;

  /** The new object of the update notification the listener thread read last, and both versions (listener thread only). */
  Object takenNewObj;
  String takenOldVersion;
  String takenNewVersion;

  ListenerState(Object handler, long listenerPeriodMillis) {
    super(handler);
    this.listenerPeriodMillis = listenerPeriodMillis;
  }

  /** client-java's handlers add to client-java's queues, which the workqueue part sees while it works. */
  @Override
  protected boolean dropsAreObservable() {
    return AgentMetrics.observability().queueAddsObservable();
  }

  void taken(Object newObj, String oldVersion, String newVersion) {
    takenNewObj = newObj;
    takenOldVersion = oldVersion;
    takenNewVersion = newVersion;
  }

  String kind() {
    InformerState informer = this.informer;
    return informer == null ? "unknown" : informer.kind;
  }

  /**
   * The handler's meters. While the handler waits for its controller to be built it is counted under
   * its class name; once the label is final it is cached.
   */
  @Override
  public HandlerMetrics metrics() {
    HandlerMetrics resolved = metrics;
    if (resolved != null) {
      return resolved;
    }
    resolved = resolve();
    return resolved != null ? resolved : AgentMetrics.get().handler(kind(), ClassLabels.of(handler().getClass()));
  }

  /** Fixes the label if it is known now and publishes the resync period gauge; null if still pending. */
  HandlerMetrics resolve() {
    ResyncMetrics registry = AgentMetrics.get();
    String label = HandlerNames.labelOrPending(handler());
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
