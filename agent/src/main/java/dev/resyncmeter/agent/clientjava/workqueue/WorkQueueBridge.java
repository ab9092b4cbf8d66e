package dev.resyncmeter.agent.clientjava.workqueue;

import dev.resyncmeter.agent.AgentFaults;
import dev.resyncmeter.agent.AgentMetrics;
import dev.resyncmeter.agent.IdentityWeakMap;
import dev.resyncmeter.agent.clientjava.HandlerNames;
import dev.resyncmeter.collector.HandlerCallTracker;
import dev.resyncmeter.collector.QueueTracker;
import dev.resyncmeter.collector.ResyncMetrics;
import dev.resyncmeter.collector.Trigger;
import java.util.Set;

/** What the workqueue advice calls: one {@link QueueTracker} per client-java queue instance. */
public final class WorkQueueBridge {

  static final String COMPONENT = "clientjava-workqueue";
  private static final IdentityWeakMap<QueueTracker> TRACKERS = new IdentityWeakMap<>();
  private static final StackWalker STACK = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);

  private WorkQueueBridge() {}

  /** A queue was made; until a controller claims it, it is named after the class that made it. */
  public static void queueCreated(Object queue) {
    try {
      if (!WorkQueueInstrumentation.SWITCH.on()) {
        return;
      }
      ResyncMetrics metrics = AgentMetrics.get();
      if (metrics != null && TRACKERS.get(queue) == null) {
        TRACKERS.put(queue, metrics.queue(creatorName()));
      }
    } catch (Throwable t) {
      AgentFaults.record(COMPONENT, t);
    }
  }

  private static String creatorName() {
    return STACK.walk(
        frames ->
            frames
                .map(StackWalker.StackFrame::getDeclaringClass)
                .filter(c -> !c.getName().startsWith("io.kubernetes.client.") && !c.getName().startsWith("dev.resyncmeter.agent.") && !c.getName().startsWith("java."))
                .findFirst()
                .map(HandlerNames::classLabel)
                .orElse("workqueue"));
  }

  /** A controller named {@code name} owns {@code queue}. */
  public static void controllerOwns(Object queue, String name) {
    try {
      if (!WorkQueueInstrumentation.SWITCH.on()) {
        return;
      }
      QueueTracker tracker = TRACKERS.get(queue);
      if (tracker != null) {
        tracker.name(name);
      }
    } catch (Throwable t) {
      AgentFaults.record(COMPONENT, t);
    }
  }

  /** values() copies its array on every call: not on a per-add path. */
  private static final QueueTracker.AddKind[] KINDS = QueueTracker.AddKind.values();

  static QueueTracker.AddKind kind(int kind) {
    return KINDS[kind];
  }

  /** {@code addRateLimited} or {@code addAfter} starts (kind 2 or 1). */
  public static void addCallStarted(Object queue, Object item, int kind) {
    try {
      if (!WorkQueueInstrumentation.SWITCH.on()) {
        return;
      }
      QueueTracker tracker = TRACKERS.get(queue);
      if (tracker != null) {
        HandlerCallTracker.queueAdded();
        tracker.addCallStarted(item, kind(kind));
      }
    } catch (Throwable t) {
      AgentFaults.record(COMPONENT, t);
    }
  }

  public static void addCallFinished(Object queue) {
    try {
      QueueTracker tracker = TRACKERS.get(queue);
      if (tracker != null) {
        tracker.addCallFinished();
      }
    } catch (Throwable t) {
      AgentFaults.record(COMPONENT, t);
    }
  }

  /** {@code DefaultWorkQueue.add(item)}, under the queue's lock, before it changes anything. */
  public static void plainAddStarted(Object queue, Object item, boolean shuttingDown, Set<?> dirty) {
    try {
      if (!WorkQueueInstrumentation.SWITCH.on()) {
        return;
      }
      HandlerCallTracker.queueAdded();
      QueueTracker tracker = TRACKERS.get(queue);
      if (tracker == null) {
        return;
      }
      Trigger trigger = tracker.addCallStarted(item, QueueTracker.AddKind.PLAIN);
      if (!shuttingDown) {
        tracker.inserted(item, trigger, dirty.contains(item));
      }
    } catch (Throwable t) {
      AgentFaults.record(COMPONENT, t);
    }
  }

  /** {@code get()} returned {@code item} to a worker, under the queue's lock. */
  public static void taken(Object queue, Object item) {
    try {
      if (!WorkQueueInstrumentation.SWITCH.on()) {
        return;
      }
      QueueTracker tracker = TRACKERS.get(queue);
      if (tracker != null && item != null) {
        tracker.taken(item);
      }
    } catch (Throwable t) {
      AgentFaults.record(COMPONENT, t);
    }
  }

  /** {@code done(item)}, under the queue's lock, before it re-queues an item added again. */
  public static void done(Object queue, Object item, Set<?> dirty) {
    try {
      QueueTracker tracker = TRACKERS.get(queue);
      if (tracker != null) {
        tracker.done(item, dirty.contains(item));
      }
    } catch (Throwable t) {
      AgentFaults.record(COMPONENT, t);
    }
  }

  /** {@code shutDown()}: the queue's delaying thread fires nothing from now on. */
  public static void shutDown(Object queue) {
    try {
      if (!WorkQueueInstrumentation.SWITCH.on()) {
        return;
      }
      QueueTracker tracker = TRACKERS.get(queue);
      if (tracker != null) {
        tracker.shutDown();
      }
    } catch (Throwable t) {
      AgentFaults.record(COMPONENT, t);
    }
  }

  public static void delayedAddsThread() {
    try {
      if (!WorkQueueInstrumentation.SWITCH.on()) {
        return;
      }
      QueueTracker.delayedAddsThread();
    } catch (Throwable t) {
      AgentFaults.record(COMPONENT, t);
    }
  }
}
