package dev.resyncmeter.examples.apiserver;

import static dev.resyncmeter.examples.apiserver.StatusException.notFound;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The stored ConfigMaps and their versions: one global resourceVersion counter, strictly increasing,
 * as decimal strings; every write stamps {@code metadata.resourceVersion}; create also sets {@code
 * uid} and {@code creationTimestamp}; a DELETED event carries the deleting version. Each write with an
 * event goes into the {@link WatchHistory}.
 *
 * <p>One lock guards the objects, the history and the watches' bookkeeping ({@link WatchStreams});
 * {@link #changed} is signalled on every write, expiry, watch open/close and close. The write methods
 * take it themselves (callers may hold it already); failures are {@link StatusException}s.
 */
final class ConfigMapStore {

  final ReentrantLock lock = new ReentrantLock();
  final Condition changed = lock.newCondition();

  private final TreeMap<String, V1ConfigMap> objects = new TreeMap<>(); // "ns/name" -> object
  private final WatchHistory history = new WatchHistory();
  private long revision = 1; // the version of the empty store; the first write gets 2

  V1ConfigMap create(String namespace, V1ConfigMap body) {
    String name = body.getMetadata() == null ? null : body.getMetadata().getName();
    if (name == null || name.isEmpty()) {
      throw new StatusException(422, "Invalid", "ConfigMap \"\" is invalid: metadata.name: Required value", null);
    }
    lock.lock();
    try {
      String key = key(namespace, name);
      if (objects.containsKey(key)) {
        throw new StatusException(
            409, "AlreadyExists", "configmaps \"" + name + "\" already exists", name);
      }
      V1ConfigMap stored = copy(body).apiVersion("v1").kind("ConfigMap");
      V1ObjectMeta meta = stored.getMetadata();
      meta.setNamespace(namespace);
      meta.setUid(UUID.randomUUID().toString());
      meta.setCreationTimestamp(OffsetDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.SECONDS));
      meta.setResourceVersion(Long.toString(++revision));
      objects.put(key, stored);
      record("ADDED", stored);
      return stored;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Replaces an object's data, keeping its other metadata: always a write, a new version and a
   * MODIFIED event, even if the data is the same. Returns a copy of the stored object.
   */
  V1ConfigMap update(String namespace, String name, Map<String, String> data) {
    lock.lock();
    try {
      return copy(replace(namespace, name, withData(namespace, name, data), true));
    } finally {
      lock.unlock();
    }
  }

  /**
   * Replaces an object's data with a new version but records no event: no watch ever hears of it.
   * Returns a copy of the stored object.
   */
  V1ConfigMap updateWithoutEvent(String namespace, String name, Map<String, String> data) {
    lock.lock();
    try {
      V1ConfigMap next = withData(namespace, name, data);
      next.getMetadata().setResourceVersion(Long.toString(++revision));
      objects.put(key(namespace, name), next);
      return copy(next);
    } finally {
      lock.unlock();
    }
  }

  /** A copy of the stored object with this data instead of its own. Caller holds the lock. */
  private V1ConfigMap withData(String namespace, String name, Map<String, String> data) {
    V1ConfigMap current = objects.get(key(namespace, name));
    if (current == null) {
      throw notFound(name);
    }
    return copy(current).data(new LinkedHashMap<>(data));
  }

  /** Replaces an object; {@code always} skips the stale-version check and no-op detection. */
  V1ConfigMap replace(String namespace, String name, V1ConfigMap body, boolean always) {
    lock.lock();
    try {
      String key = key(namespace, name);
      V1ConfigMap current = objects.get(key);
      if (current == null) {
        throw notFound(name);
      }
      String expected = body.getMetadata().getResourceVersion();
      if (!always
          && expected != null
          && !expected.isEmpty()
          && !expected.equals(current.getMetadata().getResourceVersion())) {
        throw new StatusException(
            409,
            "Conflict",
            "Operation cannot be fulfilled on configmaps \""
                + name
                + "\": the object has been modified; please apply your changes to the latest"
                + " version and try again",
            name);
      }
      V1ConfigMap next = copy(body).apiVersion("v1").kind("ConfigMap");
      V1ObjectMeta meta = next.getMetadata();
      meta.setNamespace(namespace);
      meta.setUid(current.getMetadata().getUid()); // identity is the server's, not the client's
      meta.setCreationTimestamp(current.getMetadata().getCreationTimestamp());
      meta.setResourceVersion(current.getMetadata().getResourceVersion());
      if (!always && Wire.configMap(next, true).equals(Wire.configMap(current, true))) {
        return current; // a real server does not write (or notify) an unchanged object
      }
      meta.setResourceVersion(Long.toString(++revision));
      objects.put(key, next);
      record("MODIFIED", next);
      return next;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Applies a JSON merge patch to the stored object and stores the result as a PUT of it would: the
   * patch's {@code metadata.resourceVersion}, if any, becomes the result's, so a stale one is a 409;
   * a result equal to the stored object is no write.
   */
  V1ConfigMap mergePatch(String namespace, String name, String patchBody) {
    JsonElement patch;
    try {
      patch = JsonParser.parseString(patchBody);
    } catch (RuntimeException e) {
      throw new StatusException(400, "BadRequest", "cannot decode merge patch: " + e.getMessage(), null);
    }
    if (!patch.isJsonObject()) {
      throw new StatusException(400, "BadRequest", "a merge patch of a ConfigMap must be a JSON object", name);
    }
    lock.lock();
    try {
      V1ConfigMap current = objects.get(key(namespace, name));
      if (current == null) {
        throw notFound(name);
      }
      JsonObject merged = Wire.configMap(current, true);
      mergeInto(merged, patch.getAsJsonObject());
      V1ConfigMap next = Wire.parseConfigMap(merged.toString());
      checkNamespace(next, namespace);
      if (!name.equals(next.getMetadata().getName())) {
        throw new StatusException(400, "BadRequest", "the name of the object does not match the name on the URL", name);
      }
      return replace(namespace, name, next, false);
    } finally {
      lock.unlock();
    }
  }

  /**
   * A server-side apply of {@code appliedBody} (an apply configuration as JSON, the subset of YAML
   * clients send) to the stored object, without field management: the fields it names are merged
   * into the object as a JSON merge patch would, and fields it leaves out stay (a real server removes
   * those the same field manager applied before; no writer here relies on that). As a real server
   * does: its {@code metadata.resourceVersion}, if any, is a precondition, and an apply that changes
   * nothing keeps the version and sends no event. Unlike one, it does not create a missing object (404).
   */
  V1ConfigMap apply(String namespace, String name, String appliedBody) {
    JsonElement applied;
    try {
      applied = JsonParser.parseString(appliedBody);
    } catch (RuntimeException e) {
      throw new StatusException(400, "BadRequest", "cannot decode apply configuration (EmbeddedApiServer reads JSON only): " + e.getMessage(), null);
    }
    if (!applied.isJsonObject()) {
      throw new StatusException(400, "BadRequest", "an apply configuration of a ConfigMap must be a JSON object", name);
    }
    JsonObject config = applied.getAsJsonObject();
    if (!"v1".equals(string(config, "apiVersion")) || !"ConfigMap".equals(string(config, "kind"))) {
      throw new StatusException(400, "BadRequest", "an apply configuration must name apiVersion v1 and kind ConfigMap", name);
    }
    return mergePatch(namespace, name, appliedBody);
  }

  private static String string(JsonObject object, String member) {
    JsonElement value = object.get(member);
    return value != null && value.isJsonPrimitive() ? value.getAsString() : null;
  }

  /**
   * Applies a JSON patch (RFC 6902: {@code add}, {@code remove}, {@code replace}, {@code test}) to the
   * stored object and stores the result as a PUT of it would, as {@link #mergePatch} does: a
   * {@code metadata.resourceVersion} the patch sets or tests is a precondition; a failed {@code test},
   * or a path that is not there, is a 422; a result equal to the stored object is no write.
   */
  V1ConfigMap jsonPatch(String namespace, String name, String patchBody) {
    JsonElement patch;
    try {
      patch = JsonParser.parseString(patchBody);
    } catch (RuntimeException e) {
      throw new StatusException(400, "BadRequest", "cannot decode JSON patch: " + e.getMessage(), null);
    }
    if (!patch.isJsonArray()) {
      throw new StatusException(400, "BadRequest", "a JSON patch must be a JSON array of operations", name);
    }
    lock.lock();
    try {
      V1ConfigMap current = objects.get(key(namespace, name));
      if (current == null) {
        throw notFound(name);
      }
      JsonObject patched = Wire.configMap(current, true);
      for (JsonElement operation : patch.getAsJsonArray()) {
        applyOperation(patched, operation, name);
      }
      V1ConfigMap next = Wire.parseConfigMap(patched.toString());
      checkNamespace(next, namespace);
      if (!name.equals(next.getMetadata().getName())) {
        throw new StatusException(400, "BadRequest", "the name of the object does not match the name on the URL", name);
      }
      return replace(namespace, name, next, false);
    } finally {
      lock.unlock();
    }
  }

  /** One RFC 6902 operation on objects (no arrays: a ConfigMap's data and metadata are maps). */
  private static void applyOperation(JsonObject target, JsonElement element, String name) {
    if (!element.isJsonObject() || !element.getAsJsonObject().has("op") || !element.getAsJsonObject().has("path")) {
      throw new StatusException(400, "BadRequest", "a JSON patch operation needs an op and a path", name);
    }
    JsonObject operation = element.getAsJsonObject();
    String op = operation.get("op").getAsString();
    String[] tokens = operation.get("path").getAsString().split("/", -1);
    if (tokens.length < 2 || !tokens[0].isEmpty()) {
      throw new StatusException(422, "Invalid", "the JSON patch path " + operation.get("path") + " is not a pointer into the object", name);
    }
    JsonObject parent = target;
    for (int i = 1; i < tokens.length - 1; i++) {
      JsonElement child = parent.get(unescape(tokens[i]));
      if (child == null || !child.isJsonObject()) {
        throw new StatusException(422, "Invalid", "the JSON patch path " + operation.get("path") + " is not in the object", name);
      }
      parent = child.getAsJsonObject();
    }
    String member = unescape(tokens[tokens.length - 1]);
    JsonElement value = operation.get("value");
    switch (op) {
      case "add" -> parent.add(member, required(value, name));
      case "replace", "remove", "test" -> {
        if (!parent.has(member)) {
          throw new StatusException(422, "Invalid", "the JSON patch path " + operation.get("path") + " is not in the object", name);
        }
        if (op.equals("replace")) {
          parent.add(member, required(value, name));
        } else if (op.equals("remove")) {
          parent.remove(member);
        } else if (!parent.get(member).equals(required(value, name))) {
          throw new StatusException(422, "Invalid", "the JSON patch test of " + operation.get("path") + " failed", name);
        }
      }
      default -> throw new StatusException(422, "Invalid", "EmbeddedApiServer applies the JSON patch operations add, remove, replace and test, not " + op, name);
    }
  }

  private static JsonElement required(JsonElement value, String name) {
    if (value == null) {
      throw new StatusException(400, "BadRequest", "a JSON patch add, replace or test needs a value", name);
    }
    return value;
  }

  /** RFC 6901: ~1 is /, ~0 is ~. */
  private static String unescape(String token) {
    return token.replace("~1", "/").replace("~0", "~");
  }

  /** RFC 7386: null removes a member, an object merges into an object, anything else replaces. */
  private static void mergeInto(JsonObject target, JsonObject patch) {
    for (Map.Entry<String, JsonElement> member : patch.entrySet()) {
      JsonElement value = member.getValue();
      JsonElement existing = target.get(member.getKey());
      if (value.isJsonNull()) {
        target.remove(member.getKey());
      } else if (value.isJsonObject()) {
        JsonObject into = existing != null && existing.isJsonObject() ? existing.getAsJsonObject() : new JsonObject();
        mergeInto(into, value.getAsJsonObject());
        target.add(member.getKey(), into);
      } else {
        target.add(member.getKey(), value);
      }
    }
  }

  V1ConfigMap delete(String namespace, String name) {
    lock.lock();
    try {
      V1ConfigMap removed = objects.remove(key(namespace, name));
      if (removed == null) {
        throw notFound(name);
      }
      removed.getMetadata().setResourceVersion(Long.toString(++revision));
      record("DELETED", removed);
      return removed;
    } finally {
      lock.unlock();
    }
  }

  /** A copy of the stored object, if any. */
  Optional<V1ConfigMap> get(String namespace, String name) {
    lock.lock();
    try {
      return Optional.ofNullable(objects.get(key(namespace, name))).map(ConfigMapStore::copy);
    } finally {
      lock.unlock();
    }
  }

  int size() {
    lock.lock();
    try {
      return objects.size();
    } finally {
      lock.unlock();
    }
  }

  /** The store's current resourceVersion, as a list reports it. */
  String currentResourceVersion() {
    lock.lock();
    try {
      return Long.toString(revision);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Compaction: every version up to the current one becomes too old to watch from, and every open
   * watch ends with a 410. The counter advances by one without an object change (a real, shared etcd
   * revision moves with writes to other resources all the time), so the list a client makes next
   * reports a version that is not expired and can be watched from.
   */
  void expire() {
    lock.lock();
    try {
      revision++;
      history.expire(revision);
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** The {@code ConfigMapList} of the current state of one namespace (null: all), whatever version was asked for. */
  String list(String namespace) {
    lock.lock();
    try {
      JsonArray items = new JsonArray();
      for (V1ConfigMap cm : objects.values()) {
        if (namespace == null || namespace.equals(cm.getMetadata().getNamespace())) {
          items.add(Wire.configMap(cm, false));
        }
      }
      JsonObject metadata = new JsonObject();
      metadata.addProperty("resourceVersion", Long.toString(revision));
      JsonObject list = new JsonObject();
      list.addProperty("apiVersion", "v1");
      list.addProperty("kind", "ConfigMapList");
      list.add("metadata", metadata);
      list.add("items", items);
      return list.toString();
    } finally {
      lock.unlock();
    }
  }

  // ---------------------------------------------------------------- for the watches, which hold the lock

  /** The current version. Caller holds the lock. */
  long revision() {
    return revision;
  }

  /** Every current object of one namespace (null: all) as an ADDED event line. Caller holds the lock. */
  List<String> addedEvents(String namespace) {
    List<String> lines = new ArrayList<>();
    for (V1ConfigMap cm : objects.values()) {
      if (namespace == null || namespace.equals(cm.getMetadata().getNamespace())) {
        lines.add(Wire.watchEvent("ADDED", Wire.configMap(cm, true)));
      }
    }
    return lines;
  }

  /** The events and expiries. Caller holds the lock while using it. */
  WatchHistory history() {
    return history;
  }

  /** Appends to the bounded history and wakes the watches. Caller holds the lock. */
  private void record(String type, V1ConfigMap object) {
    history.record(revision, object.getMetadata().getNamespace(), Wire.watchEvent(type, Wire.configMap(object, true)));
    changed.signalAll();
  }

  /** A 400 when the body names another namespace than the URL. */
  static void checkNamespace(V1ConfigMap cm, String namespace) {
    String inBody = cm.getMetadata().getNamespace();
    if (inBody != null && !inBody.isEmpty() && !inBody.equals(namespace)) {
      throw new StatusException(
          400,
          "BadRequest",
          "the namespace of the provided object does not match the namespace sent on the request",
          null);
    }
  }

  private static String key(String namespace, String name) {
    return namespace + "/" + name;
  }

  static V1ConfigMap copy(V1ConfigMap cm) {
    return JSON.deserialize(JSON.serialize(cm), V1ConfigMap.class);
  }
}
