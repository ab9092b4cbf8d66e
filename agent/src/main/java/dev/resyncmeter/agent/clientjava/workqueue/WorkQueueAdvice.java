package dev.resyncmeter.agent.clientjava.workqueue;

import java.util.Set;
import net.bytebuddy.asm.Advice;

/**
 * The advice woven into client-java's workqueues. {@code DefaultWorkQueue}'s methods are
 * synchronized, so this advice runs under the queue's own lock and sees its state consistently.
 */
final class WorkQueueAdvice {

  private WorkQueueAdvice() {}

  /** Every {@code DefaultWorkQueue} constructor (subclasses run it too). */
  static final class Created {
    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.This Object queue) {
      WorkQueueBridge.queueCreated(queue);
    }
  }

  /** {@code DefaultWorkQueue.add(item)}. */
  static final class PlainAdd {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(
        @Advice.This Object queue,
        @Advice.Argument(0) Object item,
        @Advice.FieldValue("shuttingDown") boolean shuttingDown,
        @Advice.FieldValue("dirty") Set<?> dirty) {
      WorkQueueBridge.plainAddStarted(queue, item, shuttingDown, dirty);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.This Object queue) {
      WorkQueueBridge.addCallFinished(queue);
    }
  }

  /** {@code DefaultDelayingQueue.addAfter(item, delay)}. */
  static final class DelayedAdd {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.This Object queue, @Advice.Argument(0) Object item) {
      WorkQueueBridge.addCallStarted(queue, item, 1);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.This Object queue) {
      WorkQueueBridge.addCallFinished(queue);
    }
  }

  /** {@code DefaultRateLimitingQueue.addRateLimited(item)}: a retry. */
  static final class RateLimitedAdd {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.This Object queue, @Advice.Argument(0) Object item) {
      WorkQueueBridge.addCallStarted(queue, item, 2);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.This Object queue) {
      WorkQueueBridge.addCallFinished(queue);
    }
  }

  /** {@code DefaultWorkQueue.get()}. */
  static final class Get {
    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.This Object queue, @Advice.Return Object item) {
      WorkQueueBridge.taken(queue, item);
    }
  }

  /** {@code DefaultWorkQueue.done(item)}. */
  static final class Done {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.This Object queue, @Advice.Argument(0) Object item, @Advice.FieldValue("dirty") Set<?> dirty) {
      WorkQueueBridge.done(queue, item, dirty);
    }
  }

  /** {@code DefaultWorkQueue.shutDown()}. */
  static final class ShutDown {
    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.This Object queue) {
      WorkQueueBridge.shutDown(queue);
    }
  }

  /** {@code DefaultDelayingQueue.waitingLoop()}: the thread that fires delayed adds. */
  static final class WaitingLoop {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter() {
      WorkQueueBridge.delayedAddsThread();
    }
  }
}
