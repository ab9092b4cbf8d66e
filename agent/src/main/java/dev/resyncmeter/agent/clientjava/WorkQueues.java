package dev.resyncmeter.agent.clientjava;

import dev.resyncmeter.agent.runtime.IdentityWeakMap;
import dev.resyncmeter.collector.QueueTracker;
import java.util.function.Supplier;

/**
 * The client-java queues the workqueue part tracks, one {@link QueueTracker} each, and the names the
 * controller part gives them: the two parts meet here, not in each other.
 */
public final class WorkQueues {

  /** A collected queue's tracker retires: its counts stay in its name's totals. */
  private static final IdentityWeakMap<QueueTracker> TRACKERS = new IdentityWeakMap<>(QueueTracker::retire);

  private WorkQueues() {}

  /** The tracker of {@code queue}, or null when it has none. */
  public static QueueTracker trackerOf(Object queue) {
    return TRACKERS.get(queue);
  }

  /** The tracker of {@code queue}, made by {@code make} if it has none (once, whichever thread asks). */
  public static QueueTracker trackerOrMake(Object queue, Supplier<QueueTracker> make) {
    synchronized (TRACKERS) {
      QueueTracker tracker = TRACKERS.get(queue);
      if (tracker == null) {
        tracker = make.get();
        TRACKERS.put(queue, tracker);
      }
      return tracker;
    }
  }

  /** A controller named {@code name} owns {@code queue}: its tracker, if it has one, counts under that name. */
  public static void controllerOwns(Object queue, String name) {
    QueueTracker tracker = TRACKERS.get(queue);
    if (tracker != null) {
      tracker.name(name);
    }
  }
}
