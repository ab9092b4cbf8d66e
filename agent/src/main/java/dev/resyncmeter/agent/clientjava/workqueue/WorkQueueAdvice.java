package dev.resyncmeter.agent.clientjava.workqueue;

import dev.resyncmeter.collector.HandlerCallTracker;
import net.bytebuddy.asm.Advice;

/** The advice woven into client-java's workqueues: every add call is reported to the collector. */
final class WorkQueueAdvice {

  private WorkQueueAdvice() {}

  /** {@code DefaultWorkQueue.add(item)} and {@code DefaultDelayingQueue.addAfter(item, delay)}. */
  static final class Add {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter() {
      HandlerCallTracker.queueAdded();
    }
  }
}
