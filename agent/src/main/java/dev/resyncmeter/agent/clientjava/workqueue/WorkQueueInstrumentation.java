package dev.resyncmeter.agent.clientjava.workqueue;

import static net.bytebuddy.matcher.ElementMatchers.isConstructor;
import static net.bytebuddy.matcher.ElementMatchers.isDeclaredBy;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.resyncmeter.agent.InstrumentationUnit;
import dev.resyncmeter.collector.HandlerCallTracker;
import java.lang.reflect.Method;
import java.util.concurrent.BlockingQueue;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.asm.AsmVisitorWrapper;
import net.bytebuddy.asm.MemberSubstitution;

/**
 * client-java-extended's workqueues: {@code DefaultWorkQueue} and the delaying and rate-limiting
 * queues built on it. A delayed add is seen when it is asked for, on the caller's thread, and keeps
 * that trigger when it fires later.
 */
public final class WorkQueueInstrumentation implements InstrumentationUnit {

  static final String PACKAGE = "io.kubernetes.client.extended.workqueue.";

  /**
   * {@code addAfter} hands a delayed add to its delaying thread with {@code waitingForAddQueue.offer(entry)}
   * and ignores a refusal (the buffer holds 1000). Only that call shows whether the add will ever fire,
   * so it goes through {@link WorkQueueBridge#offerDelayed}, which makes the same offer.
   */
  private static final AsmVisitorWrapper OFFER_DELAYED =
      MemberSubstitution.relaxed()
          .method(named("offer").and(takesArguments(1)).and(isDeclaredBy(BlockingQueue.class)))
          .replaceWith(offerDelayed())
          .on(named("addAfter").and(takesArguments(2)));

  private static Method offerDelayed() {
    try {
      return WorkQueueBridge.class.getMethod("offerDelayed", BlockingQueue.class, Object.class);
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException(e);
    }
  }

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
              return b.visit(Advice.to(WorkQueueAdvice.Created.class).on(isConstructor()))
                  .visit(Advice.to(WorkQueueAdvice.PlainAdd.class).on(named("add").and(takesArguments(1))))
                  .visit(Advice.to(WorkQueueAdvice.Get.class).on(named("get").and(takesArguments(0))))
                  .visit(Advice.to(WorkQueueAdvice.Done.class).on(named("done").and(takesArguments(1))))
                  .visit(Advice.to(WorkQueueAdvice.ShutDown.class).on(named("shutDown").and(takesArguments(0))));
            })
        .type(named(PACKAGE + "DefaultDelayingQueue"))
        .transform(
            (b, type, loader, module, domain) ->
                b.visit(Advice.to(WorkQueueAdvice.DelayedAdd.class).on(named("addAfter").and(takesArguments(2))))
                    .visit(OFFER_DELAYED)
                    .visit(Advice.to(WorkQueueAdvice.WaitingLoop.class).on(named("waitingLoop").and(takesArguments(0)))))
        .type(named(PACKAGE + "DefaultRateLimitingQueue"))
        .transform(
            (b, type, loader, module, domain) ->
                b.visit(Advice.to(WorkQueueAdvice.RateLimitedAdd.class).on(named("addRateLimited").and(takesArguments(1)))));
  }
}
