package dev.resyncmeter.agent.fabric8;

import dev.resyncmeter.collector.HandlerMetrics;
import dev.resyncmeter.collector.InformerListener;

/**
 * What the agent knows of one fabric8 {@code ProcessorListener}: its handler and its meters, and
 * the notification it delivers now. fabric8 delivers a listener's notifications one at a time (on
 * its informer's serial executor, or on the caller's thread for the first adds of a handler added to
 * a running informer), so the notification is touched by one thread at a time.
 */
final class Fabric8Listener extends InformerListener {

  private final HandlerMetrics metrics;
  /** No-op updates that add no work were dropped (the handler's work goes to an observed queue). */
  private final boolean dropsAreObservable;

  /** The notification being delivered. */
  Object notification;

  Fabric8Listener(Object handler, HandlerMetrics metrics, boolean dropsAreObservable) {
    super(handler);
    this.metrics = metrics;
    this.dropsAreObservable = dropsAreObservable;
  }

  @Override
  public HandlerMetrics metrics() {
    return metrics;
  }

  /** Work a plain fabric8 handler hands on goes where the agent cannot see: not added is unknown. */
  @Override
  protected boolean dropsAreObservable() {
    return dropsAreObservable;
  }
}
