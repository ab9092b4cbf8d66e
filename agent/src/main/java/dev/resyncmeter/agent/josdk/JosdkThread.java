package dev.resyncmeter.agent.josdk;

import dev.resyncmeter.collector.ControllerMetrics;
import dev.resyncmeter.collector.PendingEcho;
import dev.resyncmeter.collector.ReconcileResult;
import dev.resyncmeter.collector.ThreadContext;
import dev.resyncmeter.collector.Trigger;
import java.util.List;

/**
 * What the JOSDK unit follows on one thread, kept in the thread's {@link ThreadContext}: each field is
 * the trigger of a JOSDK call in progress on this thread, null when none runs. Only its own thread
 * touches it.
 */
final class JosdkThread {

  /** {@code InformerEventSource.propagateEvent}: a secondary resource changed. */
  boolean propagating;
  /** {@code EventProcessor.handleEvent}: the trigger of the event being handled. */
  Trigger event;
  /** A reschedule, retry, rate-limit delay or maximum-interval timer being scheduled now. */
  Trigger scheduling;
  /** {@code TimerEventSource}'s task running now: the reason it was scheduled for. */
  Trigger firing;
  /** A reconcile being submitted: the merged trigger of the events it takes, and whose they were. */
  Trigger taken;
  Object takenFrom;
  /** Echoes not settled yet among the events taken (null: none): the reconcile settles its trigger with them. */
  List<PendingEcho> takenEchoes;
  /** The execution this thread runs, and whether it called the reconciler (or its cleanup) yet. */
  Submission running;
  boolean ran;
  /**
   * The reconcile counted in this execution, whose effect is counted when the execution ends: JOSDK
   * writes what the reconciler returned (status, finalizer) after it returned.
   */
  ControllerMetrics reconciled;
  Trigger reconciledTrigger;
  /**
   * Echoes not told yet when the reconcile started, whose trigger waits for them (null: none); the
   * reconcile's result and time wait with it until the execution ends.
   */
  List<PendingEcho> awaitedEchoes;
  ReconcileResult awaitedResult;
  long awaitedNanos;

  /** A submitted execution: the trigger of the events it took, and the resource state they were marked on. */
  record Submission(Trigger trigger, Object resourceState, List<PendingEcho> echoes) {}

  static JosdkThread of(ThreadContext context) {
    return context.operator(JosdkThread.class, JosdkThread::new);
  }

  /** This thread's, or null when it has none yet. */
  static JosdkThread ifAny(ThreadContext context) {
    return context.operatorIfAny(JosdkThread.class);
  }
}
