package dev.resyncmeter.agent.josdk;

import static net.bytebuddy.matcher.ElementMatchers.isConstructor;
import static net.bytebuddy.matcher.ElementMatchers.named;

import dev.resyncmeter.agent.api.InstrumentationUnit;
import dev.resyncmeter.agent.api.WeavingRules;
import dev.resyncmeter.agent.fabric8.Fabric8Handlers;

/**
 * JOSDK 5.x: where events come from and why ({@code EventProcessor}, its timer), where they wait and
 * are taken ({@code ResourceState}), and the reconcile that runs for them ({@code ReconcilerExecutor},
 * {@code Controller.reconcile}). Methods are matched by name: their parameters changed across 5.x.
 * JOSDK's own classes only, never the user's reconciler: {@code Controller} is a reconciler too, so
 * matching every reconciler would count each reconcile twice.
 */
public final class JosdkInstrumentation implements InstrumentationUnit {

  static final String PACKAGE = "io.javaoperatorsdk.operator.processing.";

  @Override
  public WeavingRules install(WeavingRules builder) {
    String event = PACKAGE + "event.";
    Fabric8Handlers.lateNames(JosdkBridge::controllerOfLateEventSource);
    return builder
        .type(event + "EventProcessor")
        .transform(
            builder.layoutChecked()
                .method("handleEvent", 1, JosdkAdvice.HandleEvent.class)
                .method("eventProcessingFinished", 2, JosdkAdvice.ExecutionEnding.class)
                .advice("reScheduleExecutionIfInstructed", named("reScheduleExecutionIfInstructed"), JosdkAdvice.Scheduling.class, true)
                .advice("handleRetryOnException", named("handleRetryOnException"), JosdkAdvice.Scheduling.class, true)
                .advice("handleRateLimitedSubmission", named("handleRateLimitedSubmission"), JosdkAdvice.Scheduling.class, true)
                .advice(
                    "scheduleExecutionForMaxReconciliationInterval",
                    named("scheduleExecutionForMaxReconciliationInterval"),
                    JosdkAdvice.Scheduling.class,
                    true))
        .type(event + "ResourceState")
        .transform(
            builder.layoutChecked()
                .advice("markEventReceived", named("markEventReceived"), JosdkAdvice.EventMarked.class, true)
                .advice("unMarkEventReceived", named("unMarkEventReceived"), JosdkAdvice.EventsTaken.class, true))
        .type(event + "EventProcessor$ReconcilerExecutor")
        .transform(
            builder.layoutChecked()
                .advice("a constructor", isConstructor(), JosdkAdvice.ExecutorConstructor.class, true)
                .method("run", 0, JosdkAdvice.ExecutorRun.class))
        .type(event + "source.timer.TimerEventSource$EventProducerTimeTask")
        .transform(
            builder.layoutChecked()
                .advice("a constructor", isConstructor(), JosdkAdvice.TimerTaskConstructor.class, true)
                .method("run", 0, JosdkAdvice.TimerTaskRun.class))
        .type(event + "source.informer.InformerEventSource")
        .transform(builder.layoutChecked().method("propagateEvent", 1, JosdkAdvice.PropagateEvent.class))
        .type(event + "source.controller.ControllerEventSource")
        .transform(builder.layoutChecked().constructor(1, JosdkAdvice.ControllerEventSourceConstructor.class))
        .type(PACKAGE + "Controller")
        .transform(
            builder.layoutChecked()
                .method("reconcile", 2, JosdkAdvice.Reconcile.class)
                .method("cleanup", 2, JosdkAdvice.Cleanup.class));
  }
}
