package dev.resyncmeter.agent.runtime;

import java.lang.reflect.Field;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reads a library object's private field by name, for the few objects the agent finds only after it
 * was attached (their constructors ran before it came). The agent's classes may not name library
 * types, so this goes by name, cached per class; a field that is not there is an error of the caller's.
 */
public final class Fields {

  private static final ClassValue<Map<String, Field>> FIELDS =
      new ClassValue<>() {
        @Override
        protected Map<String, Field> computeValue(Class<?> type) {
          return new ConcurrentHashMap<>();
        }
      };

  private Fields() {}

  /** The value of the field {@code name} that {@code target}'s class or a super class declares. */
  public static Object read(Object target, String name) throws ReflectiveOperationException {
    Map<String, Field> fields = FIELDS.get(target.getClass());
    Field field = fields.get(name);
    if (field == null) {
      field = find(target.getClass(), name);
      fields.put(name, field);
    }
    return field.get(target);
  }

  private static Field find(Class<?> type, String name) throws NoSuchFieldException {
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      try {
        Field field = c.getDeclaredField(name);
        field.setAccessible(true);
        return field;
      } catch (NoSuchFieldException e) {
        // the next super class
      }
    }
    throw new NoSuchFieldException(type.getName() + "." + name);
  }
}
