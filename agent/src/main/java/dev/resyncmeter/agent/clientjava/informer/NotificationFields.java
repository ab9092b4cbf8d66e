package dev.resyncmeter.agent.clientjava.informer;

import java.lang.reflect.Field;

/**
 * Reads client-java's notification objects, whose getters are package-private. The agent's classes
 * may not name client-java types (the host may load them in a loader the agent cannot see), so this
 * goes by field name, cached per class.
 */
final class NotificationFields {

  static final String UPDATE = "io.kubernetes.client.informer.cache.ProcessorListener$UpdateNotification";
  static final String ADD = "io.kubernetes.client.informer.cache.ProcessorListener$AddNotification";

  /** Per notification class: its old and new fields if it is an update notification, else none. */
  private static final ClassValue<Field[]> OLD_AND_NEW =
      new ClassValue<>() {
        @Override
        protected Field[] computeValue(Class<?> type) {
          if (!UPDATE.equals(type.getName())) {
            return NONE;
          }
          try {
            Field oldObj = type.getDeclaredField("oldObj");
            Field newObj = type.getDeclaredField("newObj");
            oldObj.setAccessible(true);
            newObj.setAccessible(true);
            return new Field[] {oldObj, newObj};
          } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("unrecognised client-java notification layout: " + type.getName(), e);
          }
        }
      };

  private static final Field[] NONE = new Field[0];

  private NotificationFields() {}

  /** An update notification carrying two different instances: a relist's fresh copy over the cached one. */
  static boolean isUpdateOfDifferentInstances(Object notification) throws IllegalAccessException {
    if (notification == null) {
      return false;
    }
    // One class lookup instead of comparing class names on every sync notification of a resync.
    Field[] fields = OLD_AND_NEW.get(notification.getClass());
    return fields.length == 2 && fields[0].get(notification) != fields[1].get(notification);
  }

  /** A sync notification that a relist made (an added or replaced object), not a periodic resync. */
  static boolean isRelistNotification(Object notification) throws IllegalAccessException {
    return notification != null
        && (ADD.equals(notification.getClass().getName()) || isUpdateOfDifferentInstances(notification));
  }
}
