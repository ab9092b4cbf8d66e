package dev.resyncmeter.collector;

import dev.resyncmeter.collector.QueueTracker.AddKind;
import java.util.HashSet;
import java.util.LinkedList;
import java.util.Set;

/**
 * client-java-extended's DefaultWorkQueue (with the delaying and rate-limiting queues' add calls),
 * reduced to its bookkeeping, reporting to a {@link QueueTracker} exactly as the agent's advice does:
 * under the queue's lock, with the sizes of its {@code dirty} set and FIFO before and after.
 */
final class ModelQueue {

  private final QueueTracker tracker;
  private final LinkedList<Object> queue = new LinkedList<>();
  private final Set<Object> dirty = new HashSet<>();
  private final Set<Object> processing = new HashSet<>();
  private boolean shuttingDown;

  ModelQueue(QueueTracker tracker) {
    this.tracker = tracker;
  }

  synchronized void add(Object item) {
    ThreadContext context = ThreadContext.current();
    context.handlerCall().queueAdded();
    tracker.addCallStarted(context, item, AddKind.PLAIN);
    boolean wasShuttingDown = shuttingDown;
    int dirtyBefore = dirty.size();
    int queuedBefore = queue.size();
    try {
      if (shuttingDown || dirty.contains(item)) {
        return;
      }
      dirty.add(item);
      if (processing.contains(item)) {
        return;
      }
      queue.add(item);
    } finally {
      tracker.added(context, item, wasShuttingDown, dirty.size() > dirtyBefore, queue.size() > queuedBefore);
      context.addCall().finished();
    }
  }

  /** An add the tracker does not see: the queue held the item before the agent counted. */
  synchronized void addUnseen(Object item) {
    dirty.add(item);
    queue.add(item);
  }

  /** The next item, or null when none waits (the real queue would block). */
  synchronized Object get() {
    Object item = queue.poll();
    if (item != null) {
      processing.add(item);
      dirty.remove(item);
    }
    tracker.taken(ThreadContext.current(), item, queue.size());
    return item;
  }

  /** A get the tracker does not see: a worker inside a get() begun before the agent was attached. */
  synchronized Object getUnseen() {
    Object item = queue.poll();
    processing.add(item);
    dirty.remove(item);
    return item;
  }

  /** The worker that took {@code item} unseen is seen now. */
  synchronized void seenLate(Object item) {
    tracker.takenUnseen(ThreadContext.current(), item, queue.size());
  }

  synchronized void done(Object item) {
    int queuedBefore = queue.size();
    processing.remove(item);
    if (dirty.contains(item)) {
      queue.add(item);
    }
    tracker.done(ThreadContext.current(), item, queue.size() > queuedBefore);
  }

  synchronized void shutDown() {
    shuttingDown = true;
    tracker.shutDown();
  }

  /**
   * {@code addAfter(item, delay)}: with a delay the add is offered to the delaying thread's buffer,
   * which accepts it or (full) refuses it; without one it is a plain add at once.
   */
  void addAfter(Object item, boolean delayed, boolean accepted) {
    ThreadContext context = ThreadContext.current();
    context.handlerCall().queueAdded();
    tracker.addCallStarted(context, item, AddKind.DELAYED);
    try {
      if (shuttingDown) {
        return;
      }
      if (!delayed) {
        add(item);
        return;
      }
      context.addCall().delayedAddWaiting();
      if (!accepted) {
        context.addCall().delayedAddRefused();
      }
    } finally {
      context.addCall().finished();
    }
  }

  /** {@code addRateLimited(item)}: a delayed add after the rate limiter's back-off. */
  void addRateLimited(Object item) {
    ThreadContext context = ThreadContext.current();
    context.handlerCall().queueAdded();
    tracker.addCallStarted(context, item, AddKind.RATE_LIMITED);
    try {
      addAfter(item, true, true);
    } finally {
      context.addCall().finished();
    }
  }

  /** The delaying thread fires a delayed add whose time came. */
  void fireDelayedAdd(Object item) {
    Thread delaying =
        new Thread(
            () -> {
              ThreadContext.current().addCall().firesDelayedAdds();
              add(item);
            });
    delaying.start();
    try {
      delaying.join(10_000);
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }
}
