package dev.resyncmeter.agent.clientjava.controller;

import static net.bytebuddy.matcher.ElementMatchers.isConstructor;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.resyncmeter.agent.InstrumentationUnit;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;

/** client-java-extended's controller framework: which controller each builder-made handler feeds. */
public final class ControllerInstrumentation implements InstrumentationUnit {

  static final String PACKAGE = "io.kubernetes.client.extended.controller.";
  static final String RECONCILER = PACKAGE + "reconciler.Reconciler";

  @Override
  public String name() {
    return "controller";
  }

  @Override
  public AgentBuilder install(AgentBuilder builder) {
    return builder
        .type(named(PACKAGE + "DefaultControllerWatch"))
        .transform(
            (b, type, loader, module, domain) ->
                b.visit(Advice.to(ControllerAdvice.WatchHandler.class).on(named("getResourceEventHandler").and(takesArguments(0)))))
        .type(named(PACKAGE + "DefaultController"))
        .transform(
            (b, type, loader, module, domain) ->
                b.visit(
                        Advice.to(ControllerAdvice.TimeReconciler.class)
                            .on(isConstructor().and(takesArgument(0, String.class)).and(takesArgument(1, named(RECONCILER)))))
                    .visit(Advice.to(ControllerAdvice.ControllerConstructor.class).on(isConstructor())));
  }
}
