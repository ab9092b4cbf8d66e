package dev.resyncmeter.agent.clientjava.controller;

import dev.resyncmeter.agent.WeavingRules;
import static net.bytebuddy.matcher.ElementMatchers.isConstructor;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.resyncmeter.agent.InstrumentationUnit;
import dev.resyncmeter.agent.LayoutCheckedAdvice;
import dev.resyncmeter.agent.UnitSwitch;
import dev.resyncmeter.agent.clientjava.ClientJava;

/** client-java-extended's controller framework: which controller each builder-made handler feeds. */
public final class ControllerInstrumentation implements InstrumentationUnit {

  static final String PACKAGE = "io.kubernetes.client.extended.controller.";
  static final String RECONCILER = PACKAGE + "reconciler.Reconciler";
  static final String WORK_QUEUE = "io.kubernetes.client.extended.workqueue.WorkQueue";
  static final String RATE_LIMITING_QUEUE = "io.kubernetes.client.extended.workqueue.RateLimitingQueue";

  /** Off when a controller class has a shape this agent does not know. */
  static final UnitSwitch SWITCH = ClientJava.CONTROLLER.unitSwitch();

  @Override
  public WeavingRules install(WeavingRules builder) {
    return builder
        .type(PACKAGE + "DefaultControllerWatch")
        .transform(
            LayoutCheckedAdvice.of(SWITCH)
                .field("workQueue", WORK_QUEUE)
                .method("getResourceEventHandler", 0, ControllerAdvice.WatchHandler.class))
        .type(PACKAGE + "DefaultController")
        .transform(
            LayoutCheckedAdvice.of(SWITCH)
                .field("name", String.class.getName())
                .field("workQueue", RATE_LIMITING_QUEUE)
                .advice(
                    "a constructor taking (String name, Reconciler reconciler, ...)",
                    isConstructor().and(takesArgument(0, String.class)).and(takesArgument(1, named(RECONCILER))),
                    ControllerAdvice.TimeReconciler.class,
                    true)
                .advice("a constructor", isConstructor(), ControllerAdvice.ControllerConstructor.class, true))
        .type(PACKAGE + "reconciler.Result")
        .transform(
            LayoutCheckedAdvice.of(SWITCH)
                .advice("Result(boolean)", isConstructor().and(takesArguments(boolean.class)), ControllerAdvice.ResultMade.class, true));
  }
}
