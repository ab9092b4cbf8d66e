package dev.resyncmeter.agent.clientjava;

import dev.resyncmeter.agent.runtime.ClassLabels;
import dev.resyncmeter.agent.runtime.IdentityWeakMap;
import dev.resyncmeter.agent.runtime.LateStart;

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
    if (queue == null && LateStart.attached()) {
      queue = lateWatchHandlersQueue(handler);
    }
    if (queue == null) {
      return ClassLabels.of(handler.getClass());
    }
    String controller = CONTROLLER_OF_QUEUE.get(queue);
    return controller == null && LateStart.attached() ? controllerOfQueue(queue) : controller;
  }

  /** The name of the controller that takes from {@code queue}, known or found: null while neither. */
  public static String controllerOfQueue(Object queue) {
    String controller = CONTROLLER_OF_QUEUE.get(queue);
    if (controller == null && LateStart.attached()) {
      controller = LateControllers.nameOf(queue);
      if (controller != null) {
        CONTROLLER_OF_QUEUE.put(queue, controller);
      }
    }
    return controller;
  }

  /** A controller watch's handler made before the attach: its queue, read from the watch. */
  private static Object lateWatchHandlersQueue(Object handler) {
    try {
      Object queue = LateControllers.queueOfWatchHandler(handler);
      if (queue != null) {
        QUEUE_OF_WATCH_HANDLER.put(handler, queue);
      }
      return queue;
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("unrecognised controller watch handler: " + handler.getClass().getName(), e);
    }
  }
}
