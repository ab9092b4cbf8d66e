package dev.resyncmeter.agent.josdk;

import dev.resyncmeter.agent.WeavingRules;
import static net.bytebuddy.matcher.ElementMatchers.isConstructor;
import static net.bytebuddy.matcher.ElementMatchers.named;

import dev.resyncmeter.agent.InstrumentationUnit;
import dev.resyncmeter.agent.fabric8.Fabric8Handlers;
import dev.resyncmeter.agent.LayoutCheckedAdvice;
import dev.resyncmeter.agent.UnitSwitch;

/**
 * JOSDK 5.x: where events come from and why ({@code EventProcessor}, its timer), where they wait and
 * are taken ({@code ResourceState}), and the reconcile that runs for them ({@code ReconcilerExecutor},
 * {@code Controller.reconcile}). Methods are matched by name: their parameters changed across 5.x.
 * JOSDK's own classes only, never the user's reconciler: {@code Controller} is a reconciler too, so
 * matching every reconciler would count each reconcile twice.
 */
public final class JosdkInstrumentation implements InstrumentationUnit {

  static final String PACKAGE = "io.javaoperatorsdk.operator.processing.";

  static final UnitSwitch SWITCH = Josdk.RECONCILER.unitSwitch();

  @Override
  public WeavingRules install(WeavingRules builder) {
    String event = PACKAGE + "event.";
    Fabric8Handlers.lateNames(JosdkBridge::controllerOfLateEventSource);
    return builder
        .type(event + "EventProcessor")
        .transform(
            LayoutCheckedAdvice.of(SWITCH)
                .method("handleEvent", 1, JosdkAdvice.HandleEvent.class)
                .method("eventProcessingFinished", 2, JosdkAdvice.ExecutionEnding.class)
                .advice("reScheduleExecutionIfInstructed", named("reScheduleExecutionIfInstructed"), JosdkAdvice.Requeue.class, true)
                .advice("handleRetryOnException", named("handleRetryOnException"), JosdkAdvice.Requeue.class, true)
                .advice("handleRateLimitedSubmission", named("handleRateLimitedSubmission"), JosdkAdvice.Requeue.class, true)
                .advice(
                    "scheduleExecutionForMaxReconciliationInterval",
                    named("scheduleExecutionForMaxReconciliationInterval"),
                    JosdkAdvice.MaxReconciliationInterval.class,
                    true))
        .type(event + "ResourceState")
        .transform(
            LayoutCheckedAdvice.of(SWITCH)
                .advice("markEventReceived", named("markEventReceived"), JosdkAdvice.EventMarked.class, true)
                .advice("unMarkEventReceived", named("unMarkEventReceived"), JosdkAdvice.EventsTaken.class, true))
        .type(event + "EventProcessor$ReconcilerExecutor")
        .transform(
            LayoutCheckedAdvice.of(SWITCH)
                .advice("a constructor", isConstructor(), JosdkAdvice.ExecutorConstructor.class, true)
                .method("run", 0, JosdkAdvice.ExecutorRun.class))
        .type(event + "source.timer.TimerEventSource$EventProducerTimeTask")
        .transform(
            LayoutCheckedAdvice.of(SWITCH)
                .advice("a constructor", isConstructor(), JosdkAdvice.TimerTaskConstructor.class, true)
                .method("run", 0, JosdkAdvice.TimerTaskRun.class))
        .type(event + "source.informer.InformerEventSource")
        .transform(LayoutCheckedAdvice.of(SWITCH).method("propagateEvent", 1, JosdkAdvice.PropagateEvent.class))
        .type(event + "source.controller.ControllerEventSource")
        .transform(LayoutCheckedAdvice.of(SWITCH).constructor(1, JosdkAdvice.ControllerEventSourceConstructor.class))
        .type(PACKAGE + "Controller")
        .transform(
            LayoutCheckedAdvice.of(SWITCH)
                .method("reconcile", 2, JosdkAdvice.Reconcile.class)
                .method("cleanup", 2, JosdkAdvice.Cleanup.class));
  }
}
