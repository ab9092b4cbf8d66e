package dev.resyncmeter.agent.api;

import dev.resyncmeter.agent.runtime.IdentityWeakMap;
import java.util.function.Predicate;

/**
 * Cheap class-loader checks before costly type matching: a loader that cannot see a library's
 * handler interface holds no handler classes worth a look at their type hierarchy.
 */
public final class LibraryPresence implements Predicate<ClassLoader> {

  public static final LibraryPresence CLIENT_JAVA_HANDLER =
      new LibraryPresence("io/kubernetes/client/informer/ResourceEventHandler.class");

  public static final LibraryPresence FABRIC8_HANDLER =
      new LibraryPresence("io/fabric8/kubernetes/client/informers/ResourceEventHandler.class");

  private final String resource;
  // By identity and without a lock: a loader's own equals/hashCode is host code.
  private final IdentityWeakMap<Boolean> seen = new IdentityWeakMap<>();

  /** Whether a loader sees the class {@code className} (its class file). */
  public static LibraryPresence ofClass(String className) {
    return new LibraryPresence(className.replace('.', '/') + ".class");
  }

  private LibraryPresence(String resource) {
    this.resource = resource;
  }

  @Override
  public boolean test(ClassLoader loader) {
    if (loader == null) {
      return false;
    }
    Boolean known = seen.get(loader);
    if (known == null) {
      known = loader.getResource(resource) != null;
      seen.put(loader, known);
    }
    return known;
  }
}
