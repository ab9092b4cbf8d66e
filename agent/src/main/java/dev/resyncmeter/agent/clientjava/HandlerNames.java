package dev.resyncmeter.agent.clientjava;

import dev.resyncmeter.agent.ClassLabels;
import dev.resyncmeter.agent.IdentityWeakMap;

/**
 * Stable, readable {@code handler} labels. A handler made by client-java's controller builder is
 * named after its controller; since builders set the name after the watches, the name is known only
 * once the controller is built, so it is looked up then, through the workqueue the two share. Any
 * other handler is named after its class.
 */
public final class HandlerNames {

  // Weak identity keys: handlers and queues that the host drops are dropped here too, and no host
  // equals/hashCode runs (a queue or handler class of the host's may define them as it likes).
  private static final IdentityWeakMap<Object> QUEUE_OF_WATCH_HANDLER = new IdentityWeakMap<>();
  private static final IdentityWeakMap<String> CONTROLLER_OF_QUEUE = new IdentityWeakMap<>();

  private HandlerNames() {}

  /** A controller watch made {@code handler}, which adds to {@code workQueue}. */
  public static void controllerWatchHandler(Object handler, Object workQueue) {
    QUEUE_OF_WATCH_HANDLER.put(handler, workQueue);
  }

  /** A controller named {@code name} was built over {@code workQueue}. */
  public static void controllerBuilt(String name, Object workQueue) {
    CONTROLLER_OF_QUEUE.put(workQueue, name);
  }

  /**
   * The label of a handler, or null while it belongs to a controller that is not built yet.
   */
  public static String labelOrPending(Object handler) {
    Object queue = QUEUE_OF_WATCH_HANDLER.get(handler);
    if (queue == null) {
      return ClassLabels.of(handler.getClass());
    }
    return CONTROLLER_OF_QUEUE.get(queue);
  }
}
