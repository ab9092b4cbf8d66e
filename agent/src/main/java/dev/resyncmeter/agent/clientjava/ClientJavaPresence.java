package dev.resyncmeter.agent.clientjava;

import dev.resyncmeter.agent.IdentityWeakMap;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * Cheap class-loader checks before costly type matching: a loader that cannot see client-java's
 * handler interface holds no handler classes worth a look at their type hierarchy.
 */
public final class ClientJavaPresence implements ElementMatcher<ClassLoader> {

  public static final ClientJavaPresence INFORMER =
      new ClientJavaPresence("io/kubernetes/client/informer/ResourceEventHandler.class");

  private final String resource;
  // By identity and without a lock: a loader's own equals/hashCode is host code.
  private final IdentityWeakMap<Boolean> seen = new IdentityWeakMap<>();

  private ClientJavaPresence(String resource) {
    this.resource = resource;
  }

  @Override
  public boolean matches(ClassLoader loader) {
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
