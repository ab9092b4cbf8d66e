package dev.resyncmeter.agent.runtime;

import dev.resyncmeter.collector.ResourceVersionJson;
import java.lang.reflect.Method;
import java.util.Map;

/**
 * The {@code metadata.resourceVersion} of an object a client library sends or gets back, whichever
 * library's type it is: a model object ({@code getMetadata().getResourceVersion()}, client-java's and
 * fabric8's alike), a map of maps, a JSON text, or client-java's {@code V1Patch} (its JSON text). Read
 * by reflection, once per write: the agent cannot name the host's types here.
 */
public final class ResourceVersions {

  private static final ClassValue<Method> GETTERS =
      new ClassValue<>() {
        @Override
        protected Method computeValue(Class<?> type) {
          for (String name : new String[] {"getMetadata", "getResourceVersion", "getValue"}) {
            try {
              Method getter = type.getMethod(name);
              getter.setAccessible(true);
              return getter;
            } catch (ReflectiveOperationException | RuntimeException e) {
              // not this one
            }
          }
          return null;
        }
      };

  private ResourceVersions() {}

  /** The version {@code object} carries, or null when it carries none (or is no kind of object known here). */
  public static String of(Object object) throws ReflectiveOperationException {
    if (object == null) {
      return null;
    }
    if (object instanceof String) {
      return ResourceVersionJson.of((String) object);
    }
    if (object instanceof byte[]) {
      return ResourceVersionJson.of((byte[]) object);
    }
    if (object instanceof Map) {
      Object metadata = ((Map<?, ?>) object).get("metadata");
      Object version = metadata instanceof Map ? ((Map<?, ?>) metadata).get("resourceVersion") : null;
      return version instanceof String ? (String) version : null;
    }
    Method getter = GETTERS.get(object.getClass());
    if (getter == null) {
      return null;
    }
    Object got = getter.invoke(object);
    switch (getter.getName()) {
      case "getMetadata":
        // the metadata object: its getter is getResourceVersion
        return got == null || got instanceof String ? null : of(got);
      case "getResourceVersion":
        return got instanceof String ? (String) got : null;
      default:
        // a patch's text
        return got instanceof String ? ResourceVersionJson.of((String) got) : null;
    }
  }
}
