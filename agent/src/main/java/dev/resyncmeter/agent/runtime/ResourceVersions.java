package dev.resyncmeter.agent.runtime;

import dev.resyncmeter.collector.ResourceVersionJson;
import dev.resyncmeter.collector.WrittenObject;
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
            Method getter = Getters.find(type, name);
            if (getter != null) {
              return getter;
            }
          }
          return null;
        }
      };

  /** The metadata getters of each metadata class: namespace, name, uid, resourceVersion (null where missing). */
  private static final ClassValue<Method[]> IDENTITY =
      new ClassValue<>() {
        @Override
        protected Method[] computeValue(Class<?> type) {
          String[] names = {"getNamespace", "getName", "getUid", "getResourceVersion"};
          Method[] getters = new Method[names.length];
          for (int i = 0; i < names.length; i++) {
            try {
              getters[i] = type.getMethod(names[i]);
              getters[i].setAccessible(true);
            } catch (ReflectiveOperationException | RuntimeException e) {
              // not there: that part stays unknown
            }
          }
          return getters;
        }
      };

  private ResourceVersions() {}

  /**
   * The namespace, name, uid and version of a model object ({@code getMetadata()}), or of a JSON
   * text or bytes; null when it has no metadata the agent can read.
   */
  public static WrittenObject objectOf(Object object) throws ReflectiveOperationException {
    if (object == null) {
      return null;
    }
    if (object instanceof byte[]) {
      return ResourceVersionJson.objectOf((byte[]) object, ((byte[]) object).length);
    }
    Method getter = GETTERS.get(object.getClass());
    if (getter == null || !getter.getName().equals("getMetadata")) {
      return null;
    }
    Object metadata = getter.invoke(object);
    if (metadata == null) {
      return null;
    }
    Method[] getters = IDENTITY.get(metadata.getClass());
    return new WrittenObject(text(getters[0], metadata), text(getters[1], metadata), text(getters[2], metadata), text(getters[3], metadata));
  }

  private static String text(Method getter, Object metadata) throws ReflectiveOperationException {
    Object value = getter == null ? null : getter.invoke(metadata);
    return value instanceof String ? (String) value : null;
  }

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
