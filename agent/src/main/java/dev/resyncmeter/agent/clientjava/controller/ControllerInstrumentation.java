package dev.resyncmeter.agent.clientjava.controller;

import static net.bytebuddy.matcher.ElementMatchers.isConstructor;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.resyncmeter.agent.api.InstrumentationUnit;
import dev.resyncmeter.agent.api.WeavingRules;

/** client-java-extended's controller framework: which controller each builder-made handler feeds. */
public final class ControllerInstrumentation implements InstrumentationUnit {

  static final String PACKAGE = "io.kubernetes.client.extended.controller.";
  static final String RECONCILER = PACKAGE + "reconciler.Reconciler";
  static final String WORK_QUEUE = "io.kubernetes.client.extended.workqueue.WorkQueue";
  static final String RATE_LIMITING_QUEUE = "io.kubernetes.client.extended.workqueue.RateLimitingQueue";

  @Override
  public WeavingRules install(WeavingRules builder) {
    return builder
        .type(PACKAGE + "DefaultControllerWatch")
        .transform(
            builder.layoutChecked()
                .field("workQueue", WORK_QUEUE)
                .method("getResourceEventHandler", 0, ControllerAdvice.WatchHandler.class))
        .type(PACKAGE + "DefaultController")
        .transform(
            builder.layoutChecked()
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
            builder.layoutChecked()
                .advice("Result(boolean)", isConstructor().and(takesArguments(boolean.class)), ControllerAdvice.ResultMade.class, true));
  }
}
