package dev.resyncmeter.agent.clientjava.workqueue;

import static net.bytebuddy.matcher.ElementMatchers.isConstructor;
import static net.bytebuddy.matcher.ElementMatchers.isDeclaredBy;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.resyncmeter.agent.api.InstrumentationUnit;
import dev.resyncmeter.agent.api.WeavingRules;
import java.lang.reflect.Method;
import java.util.LinkedList;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
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
   * so it goes through {@link DelayedOffer#offer}, which makes the same offer.
   */
  private static final AsmVisitorWrapper OFFER_DELAYED =
      MemberSubstitution.relaxed()
          .method(named("offer").and(takesArguments(1)).and(isDeclaredBy(BlockingQueue.class)))
          .replaceWith(delayedOffer())
          .on(named("addAfter").and(takesArguments(2)));

  private static Method delayedOffer() {
    try {
      return DelayedOffer.class.getMethod("offer", BlockingQueue.class, Object.class);
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public WeavingRules install(WeavingRules builder) {
    return builder
        .type(PACKAGE + "DefaultWorkQueue")
        .transform(
            builder.layoutChecked()
                .field("dirty", Set.class.getName())
                .field("queue", LinkedList.class.getName())
                .field("shuttingDown", "boolean")
                .advice("a constructor", isConstructor(), WorkQueueAdvice.Created.class, true)
                .method("add", 1, WorkQueueAdvice.PlainAdd.class)
                .method("get", 0, WorkQueueAdvice.Get.class)
                .method("done", 1, WorkQueueAdvice.Done.class)
                .method("shutDown", 0, WorkQueueAdvice.ShutDown.class))
        .type(PACKAGE + "DefaultDelayingQueue")
        .transform(
            builder.layoutChecked()
                // The buffer whose offer the substitution replaces; without it nothing would be replaced.
                .field("waitingForAddQueue", BlockingQueue.class.getName())
                .method("addAfter", 2, WorkQueueAdvice.DelayedAdd.class)
                .method("waitingLoop", 0, WorkQueueAdvice.WaitingLoop.class)
                .visitor(OFFER_DELAYED))
        .type(PACKAGE + "DefaultRateLimitingQueue")
        .transform(builder.layoutChecked().method("addRateLimited", 1, WorkQueueAdvice.DelayedAdd.class));
  }
}
