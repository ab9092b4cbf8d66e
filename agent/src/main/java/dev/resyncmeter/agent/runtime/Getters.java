package dev.resyncmeter.agent.runtime;

import java.lang.reflect.Method;

/**
 * Finds a getter of a library object by name, for the values the agent reads from objects whose
 * types it may not name. Callers cache what it finds per class ({@link ClassValue}).
 */
public final class Getters {

  private Getters() {}

  /**
   * The public method {@code name} without parameters of {@code type}, made accessible (the class
   * declaring it need not be public); null when it has none or it cannot be made accessible.
   */
  public static Method find(Class<?> type, String name) {
    try {
      Method getter = type.getMethod(name);
      getter.setAccessible(true);
      return getter;
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }
}
