package dev.resyncmeter.agent.clientjava.controller;

import dev.resyncmeter.collector.ControllerMetrics;
import dev.resyncmeter.collector.PendingEcho;
import dev.resyncmeter.collector.ReconcileResult;
import dev.resyncmeter.collector.ThreadContext;
import dev.resyncmeter.collector.Trigger;
import java.util.List;

/**
 * Records one controller's reconciles, for its timing stand-in: the controller's meters are resolved
 * once, when the controller is built, and the trigger is the one of the item the worker holds; it is
 * {@code unknown} while the workqueue part does not count (disabled, or switched off): then no item's
 * add was seen.
 */
public final class ReconcileTimer {


  private final ControllerMetrics metrics;

  ReconcileTimer(ControllerMetrics metrics) {
    this.metrics = metrics;
  }

  /**
   * A reconcile starts on the thread of {@code context}: returns its start clock. Until it ends, API
   * requests sent on this thread count under it, with the trigger of the item the worker holds.
   */
  public long started(ThreadContext context) {
    if (context.held().awaitedEchoes() != null) {
      // its trigger is told when the echoes are: its requests wait for it
      context.reconcile().beganUntriggered(metrics);
    } else {
      context.reconcile().began(metrics, trigger(context));
    }
    return context.held().reconcileStarted();
  }

  /** A reconcile on the thread of {@code context} that started at {@code start} (nanoTime) returned or threw. */
  public void finished(ThreadContext context, long start, boolean requeue, boolean threw) {
    List<PendingEcho> echoes = context.held().awaitedEchoes();
    long[] requestsByVerb = echoes != null ? context.reconcile().overUntold() : null;
    if (echoes == null) {
      context.reconcile().over();
    }
    long nanos = context.held().reconcileEnded() - start;
    if (start == 0 || !ControllerBridge.SWITCH.on()) {
      return; // 0: its start failed, and counts nothing rather than something wrong
    }
    ReconcileResult result = threw ? ReconcileResult.ERROR : requeue ? ReconcileResult.REQUEUE : ReconcileResult.SUCCESS;
    if (echoes != null) {
      metrics.reconciledAfterEchoes(echoes, result, nanos, context.reconcile().takeEffect(), requestsByVerb);
      return;
    }
    Trigger trigger = trigger(context);
    metrics.reconciled(context.lastRow(), trigger, result, nanos);
    metrics.reconcileEffect(context.lastRow(), trigger, context.reconcile().takeEffect());
  }

  private Trigger trigger(ThreadContext context) {
    return metrics.triggerOf(context.held());
  }
}
