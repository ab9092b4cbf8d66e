package dev.resyncmeter.agent.clientjava.workqueue;

import dev.resyncmeter.collector.QueueTracker;
import dev.resyncmeter.collector.ThreadContext;
import java.util.Collection;
import net.bytebuddy.asm.Advice;

/**
 * The advice woven into client-java's workqueues. {@code DefaultWorkQueue}'s methods are
 * synchronized, so this advice runs under the queue's own lock and sees its state consistently:
 * what a call changed is read from the sizes of the queue's {@code dirty} set and FIFO.
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
        @Advice.FieldValue("dirty") Collection<?> dirty,
        @Advice.FieldValue("queue") Collection<?> fifo,
        @Advice.Local("context") ThreadContext context,
        @Advice.Local("tracker") QueueTracker tracker,
        @Advice.Local("dirtyBefore") int dirtyBefore,
        @Advice.Local("queuedBefore") int queuedBefore) {
      context = ThreadContext.current();
      tracker = WorkQueueBridge.plainAddStarted(context, queue, item);
      dirtyBefore = dirty.size();
      queuedBefore = fifo.size();
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(
        @Advice.Argument(0) Object item,
        @Advice.FieldValue("shuttingDown") boolean shuttingDown,
        @Advice.FieldValue("dirty") Collection<?> dirty,
        @Advice.FieldValue("queue") Collection<?> fifo,
        @Advice.Local("context") ThreadContext context,
        @Advice.Local("tracker") QueueTracker tracker,
        @Advice.Local("dirtyBefore") int dirtyBefore,
        @Advice.Local("queuedBefore") int queuedBefore) {
      if (tracker != null) {
        WorkQueueBridge.plainAddFinished(context, tracker, item, shuttingDown, dirty.size() > dirtyBefore, fifo.size() > queuedBefore);
      }
    }
  }

  /**
   * {@code DefaultDelayingQueue.addAfter(item, delay)} and {@code
   * DefaultRateLimitingQueue.addRateLimited(item)} (a retry): the method's name tells which.
   */
  static final class DelayedAdd {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static ThreadContext enter(@Advice.This Object queue, @Advice.Argument(0) Object item, @Advice.Origin("#m") String method)
        throws ReflectiveOperationException {
      return WorkQueueBridge.addCallStarted(queue, item, method);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter ThreadContext context) {
      WorkQueueBridge.addCallFinished(context);
    }
  }

  /** {@code DefaultWorkQueue.get()}. */
  static final class Get {
    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.This Object queue, @Advice.Return Object item, @Advice.FieldValue("queue") Collection<?> fifo) {
      if (item != null) {
        WorkQueueBridge.taken(queue, item, fifo.size());
      }
    }
  }

  /** {@code DefaultWorkQueue.done(item)}: it queues the item again if it was added while processed. */
  static final class Done {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static int enter(@Advice.FieldValue("queue") Collection<?> fifo) {
      return fifo.size();
    }

    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(
        @Advice.This Object queue, @Advice.Argument(0) Object item, @Advice.FieldValue("queue") Collection<?> fifo, @Advice.Enter int queuedBefore) {
      WorkQueueBridge.done(queue, item, fifo.size() > queuedBefore, queuedBefore);
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
      WorkQueueBridge.firesDelayedAdds();
    }
  }
}
