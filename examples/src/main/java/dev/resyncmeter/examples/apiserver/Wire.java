package dev.resyncmeter.examples.apiserver;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.time.format.DateTimeFormatter;
import java.util.Iterator;
import java.util.Map;

/**
 * The JSON the embedded server puts on the wire, shaped like a real API server's.
 *
 * <p>Objects go through client-java's own {@link JSON} (plain Gson cannot serialise {@code
 * OffsetDateTime} on Java 17). client-java 27 models start with empty maps and lists, which a real
 * server would omit ({@code omitempty}), so they are pruned; timestamps are written as RFC 3339 in
 * whole seconds, as Kubernetes does.
 */
final class Wire {

  private Wire() {}

  /** The object as a real server sends it; list items carry no kind/apiVersion. */
  static JsonObject configMap(V1ConfigMap cm, boolean withTypeMeta) {
    JsonObject tree = JSON.getGson().toJsonTree(cm).getAsJsonObject();
    prune(tree);
    if (!withTypeMeta) {
      tree.remove("kind");
      tree.remove("apiVersion");
    }
    JsonObject meta = tree.getAsJsonObject("metadata");
    if (meta != null && cm.getMetadata().getCreationTimestamp() != null) {
      meta.addProperty(
          "creationTimestamp",
          DateTimeFormatter.ISO_INSTANT.format(cm.getMetadata().getCreationTimestamp().toInstant()));
    }
    return tree;
  }

  /** One line of a watch stream: {@code {"type":...,"object":...}}. */
  static String watchEvent(String type, JsonObject object) {
    JsonObject event = new JsonObject();
    event.addProperty("type", type);
    event.add("object", object);
    return event.toString();
  }

  /** A {@code v1 Status} body; {@code name} may be null (no details then). */
  static JsonObject status(int code, String reason, String message, String name) {
    JsonObject status = new JsonObject();
    status.addProperty("kind", "Status");
    status.addProperty("apiVersion", "v1");
    status.add("metadata", new JsonObject());
    status.addProperty("status", code < 400 ? "Success" : "Failure");
    if (message != null) {
      status.addProperty("message", message);
    }
    if (reason != null) {
      status.addProperty("reason", reason);
    }
    if (name != null) {
      JsonObject details = new JsonObject();
      details.addProperty("name", name);
      details.addProperty("kind", "configmaps");
      status.add("details", details);
    }
    status.addProperty("code", code);
    return status;
  }

  /** The 410 a real server sends when a watch's resourceVersion has been compacted away. */
  static String expiredEvent(long requested, long current) {
    return watchEvent(
        "ERROR",
        status(
            410,
            "Expired",
            "too old resource version: " + requested + " (" + current + ")",
            null));
  }

  /** A ConfigMap from a request body (with metadata, if empty); 400 BadRequest when it is none. */
  static V1ConfigMap parseConfigMap(String body) {
    try {
      V1ConfigMap cm = JSON.deserialize(body, V1ConfigMap.class);
      if (cm == null) {
        throw new IllegalArgumentException("empty body");
      }
      if (cm.getMetadata() == null) {
        cm.setMetadata(new V1ObjectMeta());
      }
      return cm;
    } catch (RuntimeException e) { // JsonParseException or client-java's unknown-field check
      throw new StatusException(400, "BadRequest", "cannot decode ConfigMap: " + e.getMessage(), null);
    }
  }

  private static void prune(JsonObject object) {
    Iterator<Map.Entry<String, JsonElement>> it = object.entrySet().iterator();
    while (it.hasNext()) {
      JsonElement value = it.next().getValue();
      if (value.isJsonObject()) {
        prune(value.getAsJsonObject());
      }
      if (value.isJsonNull()
          || (value.isJsonObject() && value.getAsJsonObject().size() == 0)
          || (value.isJsonArray() && value.getAsJsonArray().isEmpty())) {
        it.remove();
      }
    }
  }
}
