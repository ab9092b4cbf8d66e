package dev.resyncmeter.agent.clientjava.workqueue;

import dev.resyncmeter.agent.clientjava.ClientJava;
import dev.resyncmeter.agent.clientjava.HandlerNames;
import dev.resyncmeter.agent.clientjava.LateControllers;
import dev.resyncmeter.agent.clientjava.WorkQueues;
import dev.resyncmeter.agent.runtime.AgentMetrics;
import dev.resyncmeter.agent.runtime.ClassLabels;
import dev.resyncmeter.agent.runtime.Fields;
import dev.resyncmeter.agent.runtime.LateStart;
import dev.resyncmeter.agent.runtime.UnitSwitch;
import dev.resyncmeter.collector.QueueTracker;
import dev.resyncmeter.collector.ResyncMetrics;
import dev.resyncmeter.collector.ThreadContext;

/** What the workqueue advice calls: one {@link QueueTracker} per client-java queue instance. */
public final class WorkQueueBridge {

  /** The switch of the part this belongs to. */
  static final UnitSwitch SWITCH = ClientJava.WORKQUEUE.unitSwitch();
  private static final StackWalker STACK = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);

  private static final String DELAYING_QUEUE = WorkQueueInstrumentation.PACKAGE + "DefaultDelayingQueue";
  /**
   * After an attach, whether this thread runs a delaying queue's loop that began before it (so its
   * advice never ran): its plain adds are delayed adds firing, not adds of the application's.
   */
  private static final ThreadLocal<Boolean> LATE_DELAYING_THREAD =
      ThreadLocal.withInitial(
          () -> STACK.walk(frames -> frames.anyMatch(f -> f.getMethodName().equals("waitingLoop") && f.getClassName().equals(DELAYING_QUEUE))));

  private WorkQueueBridge() {}

  /** How many items wait in a client-java queue, read under its lock. */
  private static int queued(Object queue) throws ReflectiveOperationException {
    return ((java.util.Collection<?>) Fields.read(queue, "queue")).size();
  }

  /** A queue was made; until a controller claims it, it is named after the class that made it. */
  public static void queueCreated(Object queue) {
    if (!SWITCH.on()) {
      return;
    }
    ResyncMetrics metrics = AgentMetrics.get();
    if (metrics != null) {
      WorkQueues.trackerOrMake(queue, () -> metrics.queue(creatorName()));
    }
  }

  private static String creatorName() {
    return STACK.walk(
        frames ->
            frames
                .map(StackWalker.StackFrame::getDeclaringClass)
                .filter(c -> !c.getName().startsWith("io.kubernetes.client.") && !c.getName().startsWith("dev.resyncmeter.agent.") && !c.getName().startsWith("java."))
                .findFirst()
                .map(ClassLabels::of)
                .orElse("workqueue"));
  }

  /**
   * A queue made before the agent was attached, met at its first use since: named after the
   * controller whose workers take from it, if one can be found, else after its class. What waited in
   * it then is taken as {@code unknown} work.
   */
  private static QueueTracker lateTracker(Object queue) {
    ResyncMetrics metrics = AgentMetrics.get();
    if (metrics == null) {
      return null;
    }
    return WorkQueues.trackerOrMake(
        queue,
        () -> {
          String controller = HandlerNames.controllerOfQueue(queue);
          return metrics.queue(controller != null ? controller : ClassLabels.of(queue.getClass()));
        });
  }

  /** The tracker of {@code queue}, from this thread's one-entry cache when it used that queue last. */
  private static QueueTracker tracker(ThreadContext context, Object queue) {
    QueueTracker tracker = QueueTracker.lastUsed(context, queue);
    if (tracker == null) {
      tracker = WorkQueues.trackerOf(queue);
      if (tracker == null && LateStart.attached()) {
        tracker = lateTracker(queue);
      }
      if (tracker != null) {
        QueueTracker.used(context, queue, tracker);
      }
    }
    return tracker;
  }

  /**
   * {@code addAfter} or {@code addRateLimited} ({@code method}) starts; returns the context to finish
   * it with, or null.
   */
  public static ThreadContext addCallStarted(Object queue, Object item, String method) throws ReflectiveOperationException {
    if (!SWITCH.on()) {
      return null;
    }
    QueueTracker.AddKind kind = "addAfter".equals(method) ? QueueTracker.AddKind.DELAYED : QueueTracker.AddKind.RATE_LIMITED;
    ThreadContext context = ThreadContext.current();
    QueueTracker tracker = tracker(context, queue);
    if (tracker == null) {
      return null;
    }
    if (LateStart.attached() && !context.held().holds(tracker, item) && LateControllers.tookUnseen(queue)) {
      // a worker requeueing the item it took unseen: it holds it, as a seen take would have said
      synchronized (queue) {
        tracker.takenUnseen(context, item, queued(queue));
      }
    }
    context.handlerCall().queueAdded();
    tracker.addCallStarted(context, item, kind);
    return context;
  }

  /** The add call that {@link #addCallStarted} returned {@code context} for ended; null: it started none. */
  public static void addCallFinished(ThreadContext context) {
    if (context != null) {
      context.addCall().finished();
    }
  }

  /**
   * {@code DefaultWorkQueue.add(item)} starts, under the queue's lock; returns the queue's tracker for
   * {@link #plainAddFinished}, or null when there is nothing to finish.
   */
  public static QueueTracker plainAddStarted(ThreadContext context, Object queue, Object item) {
    if (!SWITCH.on()) {
      return null;
    }
    context.handlerCall().queueAdded();
    QueueTracker tracker = tracker(context, queue);
    if (tracker != null) {
      if (LateStart.attached() && LATE_DELAYING_THREAD.get()) {
        context.addCall().firesDelayedAdds();
      }
      tracker.addCallStarted(context, item, QueueTracker.AddKind.PLAIN);
    }
    return tracker;
  }

  /** The plain add returned, still under the queue's lock: what it changed, from the queue's sizes. */
  public static void plainAddFinished(
      ThreadContext context, QueueTracker tracker, Object item, boolean shuttingDown, boolean dirtyGrew, boolean queueGrew) {
    try {
      tracker.added(context, item, shuttingDown, dirtyGrew, queueGrew);
    } finally {
      addCallFinished(context);
    }
  }

  /** {@code get()} returned {@code item} to a worker, under the queue's lock; {@code queuedAfter} still wait. */
  public static void taken(Object queue, Object item, int queuedAfter) {
    if (!SWITCH.on()) {
      return;
    }
    ThreadContext context = ThreadContext.current();
    QueueTracker tracker = tracker(context, queue);
    if (tracker != null) {
      if (LateStart.attached()) {
        LateControllers.tookUnseen(queue); // seen taking: no longer a worker in an unseen get
      }
      tracker.taken(context, item, queuedAfter);
      if (LateStart.attached()) {
        LateControllers.workTaken(queue, context);
      }
    }
  }

  /**
   * {@code done(item)} returned, under the queue's lock; {@code requeued}: it queued the item again,
   * {@code queuedBefore}: the items that waited when it was called.
   */
  public static void done(Object queue, Object item, boolean requeued, int queuedBefore) {
    ThreadContext context = ThreadContext.current();
    QueueTracker tracker = tracker(context, queue);
    if (tracker == null) {
      return;
    }
    try {
      if (LateStart.attached()) {
        if (!context.held().holds(tracker, item) && LateControllers.tookUnseen(queue)) {
          tracker.takenUnseen(context, item, queuedBefore);
        }
        if (context.held().holds(tracker, item)) {
          LateControllers.workDone(queue, context);
        }
      }
    } finally {
      // whatever failed above, the worker no longer holds the item
      tracker.done(context, item, requeued);
    }
  }

  /** {@code shutDown()}: the queue's delaying thread fires nothing from now on. */
  public static void shutDown(Object queue) {
    if (!SWITCH.on()) {
      return;
    }
    QueueTracker tracker = WorkQueues.trackerOf(queue);
    if (tracker != null) {
      tracker.shutDown();
    }
  }

  public static void firesDelayedAdds() {
    if (!SWITCH.on()) {
      return;
    }
    ThreadContext.current().addCall().firesDelayedAdds();
  }
}
