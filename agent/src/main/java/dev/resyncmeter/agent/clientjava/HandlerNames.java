package dev.resyncmeter.agent.clientjava;

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
      return classLabel(handler.getClass());
    }
    return CONTROLLER_OF_QUEUE.get(queue);
  }

  /**
   * A class's binary name without its package ({@code Outer$Inner}); anonymous, local and lambda
   * classes take their enclosing class's name, since their own ({@code Outer$1}) changes with the build.
   */
  public static String classLabel(Class<?> type) {
    Class<?> named = type;
    while (named.isAnonymousClass() || named.isLocalClass() || named.isSynthetic() || named.getName().contains("$$Lambda")) {
      Class<?> enclosing = named.getEnclosingClass();
      if (enclosing == null) {
        enclosing = lambdaHost(named);
      }
      if (enclosing == null) {
        break;
      }
      named = enclosing;
    }
    String name = named.getName();
    String packageName = named.getPackageName();
    return packageName.isEmpty() ? name : name.substring(packageName.length() + 1);
  }

  private static Class<?> lambdaHost(Class<?> type) {
    String name = type.getName();
    int marker = name.indexOf("$$Lambda");
    if (marker < 0) {
      return null;
    }
    try {
      return Class.forName(name.substring(0, marker), false, type.getClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      return null;
    }
  }
}
