package dev.resyncmeter.agent.josdk;

import io.javaoperatorsdk.operator.api.reconciler.BaseControl;
import io.javaoperatorsdk.operator.processing.Controller;
import io.javaoperatorsdk.operator.processing.event.source.controller.ResourceEvent;
import net.bytebuddy.asm.Advice;

/**
 * The advice woven into JOSDK's classes. Each piece is inlined into the host's class (so it may name
 * JOSDK types) and only hands what it sees to {@link JosdkBridge}.
 * {@code suppress = Throwable.class}: a fault in the agent never reaches the host.
 */
final class JosdkAdvice {

  private JosdkAdvice() {}

  /** {@code ControllerEventSource(Controller)}. */
  static final class ControllerEventSourceConstructor {
    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.This Object eventSource, @Advice.Argument(0) Object controller) {
      JosdkBridge.controllerEventSourceCreated(eventSource, ((Controller<?>) controller).getConfiguration().getName());
    }
  }

  /** {@code EventProcessor.handleEvent(Event)}. */
  static final class HandleEvent {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static Object enter(@Advice.Argument(0) Object event) {
      return JosdkBridge.eventHandling(event instanceof ResourceEvent);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter Object previous) {
      JosdkBridge.eventHandled(previous);
    }
  }

  /** {@code InformerEventSource.propagateEvent(secondary)}. */
  static final class PropagateEvent {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter() {
      JosdkBridge.propagating(true);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit() {
      JosdkBridge.propagating(false);
    }
  }

  /**
   * {@code EventProcessor.reScheduleExecutionIfInstructed} (what the reconcile asked for),
   * {@code handleRetryOnException} and {@code handleRateLimitedSubmission}, which schedule a requeue,
   * and {@code scheduleExecutionForMaxReconciliationInterval}, JOSDK's periodic reconcile: the
   * method's name tells which.
   */
  static final class Scheduling {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static Object enter(@Advice.Origin("#m") String method) {
      return JosdkBridge.schedulingStarting(method);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter Object previous) {
      JosdkBridge.schedulingFinished(previous);
    }
  }

  /** {@code TimerEventSource$EventProducerTimeTask(ResourceID)}. */
  static final class TimerTaskConstructor {
    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.This Object task) {
      JosdkBridge.timerTaskCreated(task);
    }
  }

  /** {@code TimerEventSource$EventProducerTimeTask.run()}. */
  static final class TimerTaskRun {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static Object enter(@Advice.This Object task) {
      return JosdkBridge.timerFiring(task);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter Object previous) {
      JosdkBridge.timerFired(previous);
    }
  }

  /** {@code ResourceState.markEventReceived(...)}. */
  static final class EventMarked {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.This Object state) {
      JosdkBridge.eventMarked(state);
    }
  }

  /** {@code ResourceState.unMarkEventReceived(...)}. */
  static final class EventsTaken {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.This Object state) {
      JosdkBridge.eventsTaken(state);
    }
  }

  /** {@code EventProcessor$ReconcilerExecutor(ResourceID, ExecutionScope)}. */
  static final class ExecutorConstructor {
    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.This Object executor) {
      JosdkBridge.reconcileSubmitted(executor);
    }
  }

  /** {@code EventProcessor$ReconcilerExecutor.run()}. */
  static final class ExecutorRun {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.This Object executor) {
      JosdkBridge.executionStarting(executor);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit() {
      JosdkBridge.executionFinished();
    }
  }

  /** {@code EventProcessor.eventProcessingFinished(scope, postExecutionControl)}, on the reconciler thread. */
  static final class ExecutionEnding {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter() {
      JosdkBridge.executionEnding();
    }
  }

  /** {@code Controller.cleanup(resource, context)}. */
  static final class Cleanup {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter() {
      JosdkBridge.cleanupRunning();
    }
  }

  /** {@code Controller.reconcile(resource, context)}: JOSDK's call of the reconciler. */
  static final class Reconcile {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static long enter(@Advice.This Object controller, @Advice.Argument(0) Object resource) throws ReflectiveOperationException {
      return JosdkBridge.reconcileStarting(((Controller<?>) controller).getConfiguration().getName(), resource);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter long startedAt, @Advice.Return Object result, @Advice.Thrown Throwable thrown) {
      boolean rescheduled = result instanceof BaseControl && ((BaseControl<?>) result).getScheduleDelay().isPresent();
      JosdkBridge.reconcileFinished(startedAt, rescheduled, thrown);
    }
  }
}
