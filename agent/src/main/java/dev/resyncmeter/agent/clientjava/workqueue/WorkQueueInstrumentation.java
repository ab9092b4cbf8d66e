package dev.resyncmeter.agent.clientjava.workqueue;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.resyncmeter.agent.InstrumentationUnit;
import dev.resyncmeter.collector.HandlerCallTracker;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;

/**
 * client-java-extended's workqueues. The delaying and rate-limiting queues extend
 * {@code DefaultWorkQueue}; a delayed add is seen when it is asked for, on the caller's thread.
 */
public final class WorkQueueInstrumentation implements InstrumentationUnit {

  static final String PACKAGE = "io.kubernetes.client.extended.workqueue.";

  @Override
  public String name() {
    return "workqueue";
  }

  @Override
  public AgentBuilder install(AgentBuilder builder) {
    return builder
        .type(named(PACKAGE + "DefaultWorkQueue"))
        .transform(
            (b, type, loader, module, domain) -> {
              // From now on a handler that adds nothing is known to have dropped its update.
              HandlerCallTracker.queueAddsBecameObservable();
              return b.visit(Advice.to(WorkQueueAdvice.Add.class).on(named("add").and(takesArguments(1))));
            })
        .type(named(PACKAGE + "DefaultDelayingQueue"))
        .transform(
            (b, type, loader, module, domain) ->
                b.visit(Advice.to(WorkQueueAdvice.Add.class).on(named("addAfter").and(takesArguments(2)))));
  }
}
