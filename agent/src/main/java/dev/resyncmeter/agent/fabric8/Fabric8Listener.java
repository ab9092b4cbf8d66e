package dev.resyncmeter.agent.fabric8;

import dev.resyncmeter.agent.HandlerOnThread;
import dev.resyncmeter.collector.HandlerMetrics;
import dev.resyncmeter.collector.NotificationType;
import dev.resyncmeter.collector.ThreadContext;
import dev.resyncmeter.collector.UpdateCause;

/**
 * What the agent knows of one fabric8 {@code ProcessorListener}: its handler and its meters, and
 * the notification it delivers now. fabric8 delivers a listener's notifications one at a time (on
 * its informer's serial executor, or on the caller's thread for the first adds of a handler added to
 * a running informer), so the call fields are touched by one thread at a time.
 */
final class Fabric8Listener implements HandlerOnThread {

  final Object handler;
  final HandlerMetrics metrics;
  /** No-op updates that add no work were dropped (the handler's work goes to an observed queue). */
  final boolean dropsAreObservable;

  // The notification being delivered, and the handler call it makes.
  ThreadContext context;
  Object notification;
  boolean inCall;
  NotificationType callType;
  UpdateCause cause;
  boolean unchanged;

  Fabric8Listener(Object handler, HandlerMetrics metrics, boolean dropsAreObservable) {
    this.handler = handler;
    this.metrics = metrics;
    this.dropsAreObservable = dropsAreObservable;
  }

  @Override
  public String handlerLabel() {
    return metrics.handler();
  }
}
