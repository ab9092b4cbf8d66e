package dev.resyncmeter.agent.runtime;

/** The {@code handler} label of a handler that has no better name: its class's, stable across builds. */
public final class ClassLabels {

  private ClassLabels() {}

  /**
   * A class's binary name without its package ({@code Outer$Inner}); anonymous, local and lambda
   * classes take their enclosing class's name, since their own ({@code Outer$1}) changes with the build.
   */
  public static String of(Class<?> type) {
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
