package dev.resyncmeter.examples.scenario;

import com.google.gson.JsonObject;
import dev.resyncmeter.examples.apiserver.EmbeddedApiServer;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapList;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The writes of the api-requests run's reconcilers: each reconcile makes the next kind of write in
 * its controller's turn ({@link #TURNS}), and knows its effect from what it sent and what the server
 * answered, never from the agent's rules: {@code none} when it wrote nothing, {@code changed} when a
 * write succeeded and changed something (a create, a delete, an update or patch answered with another
 * resourceVersion than the one sent), else {@code unchanged} (an error status, or an update or patch
 * answered with the version it sent). One exception, by the agent's documented rule: a merge patch
 * without a resourceVersion counts {@code changed}, since nothing in the request says which version it
 * patched; here such a patch changes nothing on the server, and {@link #outcomes} says so.
 *
 * <p>Writes that change go to objects in {@link #NAMESPACE}, which the controllers of this run do not
 * watch (a change there makes no reconcile); writes to the reconciled object itself change nothing
 * (the same data, or a stale version, or a create of what exists), so the server sends no event.
 * Reconciles of one key by one controller never overlap, so each controller and key has its own
 * scratch object there, and no write of one reconcile races another's.
 */
final class EffectWrites {

  /** Where the writes that change something go: not watched by this run's controllers. */
  static final String NAMESPACE = "effects";
  /** Older than every object's: the server's first write gets version 2. */
  static final String STALE_VERSION = "1";

  enum Write {
    NONE,
    UPDATE_SAME,
    UPDATE_CHANGE,
    UPDATE_STALE,
    PATCH_SAME,
    PATCH_CHANGE,
    PATCH_STALE,
    PATCH_WITHOUT_VERSION,
    CREATE,
    CREATE_EXISTING,
    DELETE,
    DELETE_MISSING,
    CONFLICT_THEN_RETRY
  }

  /**
   * The order of the writes in each controller's turn. The steps' reconciles take turns in step order
   * (each step waits until the controllers are idle), so the kinds each trigger gets are the same in
   * every run: with the scenario's 3 objects, the enqueuing controller's resyncs, relist, changes and
   * requeues each get reconciles of all three effects.
   */
  static final Write[] TURNS = {
    Write.NONE, Write.UPDATE_SAME, Write.UPDATE_CHANGE, Write.UPDATE_STALE,
    Write.NONE, Write.PATCH_SAME, Write.PATCH_CHANGE, Write.PATCH_STALE, Write.PATCH_WITHOUT_VERSION,
    Write.NONE, Write.CREATE, Write.CREATE_EXISTING, Write.DELETE, Write.DELETE_MISSING, Write.CONFLICT_THEN_RETRY
  };

  private static final int DOOMED = 20;

  private final GenericKubernetesApi<V1ConfigMap, V1ConfigMapList> api;
  private final Map<String, AtomicInteger> turns = new ConcurrentHashMap<>();
  private final AtomicInteger nextDoomed = new AtomicInteger();
  private final AtomicInteger nextCreated = new AtomicInteger();
  /** What each kind of write got from the server, and the effect counted: the same with the agent as without. */
  final Set<String> outcomes = ConcurrentHashMap.newKeySet();

  EffectWrites(GenericKubernetesApi<V1ConfigMap, V1ConfigMapList> api) {
    this.api = api;
  }

  /**
   * The objects the writes need, made through the server's Java API (no request a controller sends):
   * a scratch object for each controller and key, and objects to delete.
   */
  static void prepare(EmbeddedApiServer server, List<String> controllers, List<String> keys) {
    for (String controller : controllers) {
      for (String key : keys) {
        server.create(NAMESPACE, scratchName(controller, key), Map.of("n", "0"));
      }
    }
    for (int i = 0; i < DOOMED; i++) {
      server.create(NAMESPACE, "doomed-" + i, Map.of());
    }
  }

  /**
   * The write of one reconcile of {@code key} by {@code controller}, which read {@code read}: the next
   * in the controller's turn. Each request's verb goes to {@code countVerb}. Returns the reconcile's effect.
   */
  String write(String controller, String key, V1ConfigMap read, Consumer<String> countVerb) {
    Write write = TURNS[turns.computeIfAbsent(controller, c -> new AtomicInteger()).getAndIncrement() % TURNS.length];
    Requests requests = new Requests(countVerb);
    String version = read.getMetadata().getResourceVersion();
    String scratch = scratchName(controller, key);
    switch (write) {
      case NONE -> {}
      case UPDATE_SAME -> requests.update(read);
      case UPDATE_CHANGE -> {
        V1ConfigMap current = requests.get(NAMESPACE, scratch);
        current.getData().put("n", Integer.toString(Integer.parseInt(current.getData().get("n")) + 1));
        requests.update(current);
      }
      case UPDATE_STALE -> {
        V1ConfigMap lost = copy(read);
        lost.getMetadata().setResourceVersion(STALE_VERSION);
        lost.getData().put("lost", "update");
        requests.update(lost);
      }
      case PATCH_SAME -> requests.mergePatch("default", key, version, version, read.getData());
      case PATCH_CHANGE -> {
        V1ConfigMap current = requests.get(NAMESPACE, scratch);
        String currentVersion = current.getMetadata().getResourceVersion();
        requests.mergePatch(NAMESPACE, scratch, currentVersion, currentVersion, Map.of("n", Integer.toString(Integer.parseInt(current.getData().get("n")) + 1)));
      }
      case PATCH_STALE -> requests.mergePatch("default", key, STALE_VERSION, version, Map.of("lost", "update"));
      case PATCH_WITHOUT_VERSION -> requests.mergePatch("default", key, null, version, read.getData());
      case CREATE -> requests.create(NAMESPACE, "created-" + nextCreated.incrementAndGet());
      case CREATE_EXISTING -> requests.create("default", key);
      case DELETE -> {
        int doomed = nextDoomed.getAndIncrement();
        if (doomed >= DOOMED) {
          throw new IllegalStateException("no object left to delete: prepare more than " + DOOMED);
        }
        requests.delete(NAMESPACE, "doomed-" + doomed);
      }
      case DELETE_MISSING -> requests.delete(NAMESPACE, "never-created");
      case CONFLICT_THEN_RETRY -> {
        // what a controller does after a conflict: read again and write again
        V1ConfigMap current = requests.get(NAMESPACE, scratch);
        V1ConfigMap stale = copy(current);
        stale.getMetadata().setResourceVersion(STALE_VERSION);
        requests.update(stale);
        current = requests.get(NAMESPACE, scratch);
        current.getData().put("n", Integer.toString(Integer.parseInt(current.getData().get("n")) + 1));
        requests.update(current);
      }
    }
    String effect = requests.effect();
    outcomes.add("WRITE " + write + ": " + String.join(", ", requests.answers) + " -> " + effect);
    return effect;
  }

  private static String scratchName(String controller, String key) {
    return controller + "--" + key;
  }

  private static V1ConfigMap copy(V1ConfigMap object) {
    return JSON.deserialize(JSON.serialize(object), V1ConfigMap.class);
  }

  /** The requests of one reconcile, and what each of them changed by the server's answer. */
  private final class Requests {
    private final Consumer<String> countVerb;
    final List<String> answers = new ArrayList<>();
    int writes;
    boolean changed;

    Requests(Consumer<String> countVerb) {
      this.countVerb = countVerb;
    }

    String effect() {
      return writes == 0 ? "none" : changed ? "changed" : "unchanged";
    }

    V1ConfigMap get(String namespace, String name) {
      countVerb.accept("get");
      KubernetesApiResponse<V1ConfigMap> read = api.get(namespace, name);
      if (!read.isSuccess()) {
        throw new IllegalStateException("reading " + namespace + "/" + name + " failed: " + read.getHttpStatusCode());
      }
      return read.getObject();
    }

    void update(V1ConfigMap object) {
      countVerb.accept("update");
      String sent = object.getMetadata().getResourceVersion();
      versioned("PUT", api.update(object), sent);
    }

    /**
     * A JSON merge patch of {@code data}, carrying {@code version} as its precondition if not null, of
     * an object last read at {@code versionRead}.
     */
    void mergePatch(String namespace, String name, String version, String versionRead, Map<String, String> data) {
      JsonObject patch = new JsonObject();
      if (version != null) {
        JsonObject metadata = new JsonObject();
        metadata.addProperty("resourceVersion", version);
        patch.add("metadata", metadata);
      }
      JsonObject patchData = new JsonObject();
      new TreeMap<>(data).forEach(patchData::addProperty);
      patch.add("data", patchData);
      countVerb.accept("patch");
      KubernetesApiResponse<V1ConfigMap> answer = api.patch(namespace, name, V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, new V1Patch(patch.toString()));
      if (version == null && answer.isSuccess()) {
        // The agent's documented rule: a patch that carries no resourceVersion counts changed.
        writes++;
        changed = true;
        String after = answer.getObject().getMetadata().getResourceVersion();
        answers.add("PATCH ok " + (after.equals(versionRead) ? "same version" : "new version") + " (no version sent: changed by the rule)");
        return;
      }
      versioned("PATCH", answer, version);
    }

    void create(String namespace, String name) {
      countVerb.accept("create");
      V1ConfigMap object = new V1ConfigMap().metadata(new V1ObjectMeta().namespace(namespace).name(name)).data(Map.of("created", "by a reconcile"));
      unversioned("POST", api.create(object));
    }

    void delete(String namespace, String name) {
      countVerb.accept("delete");
      unversioned("DELETE", api.delete(namespace, name));
    }

    /** An update or patch: changed if it succeeded with another version than the one it sent. */
    private void versioned(String method, KubernetesApiResponse<V1ConfigMap> answer, String sent) {
      writes++;
      if (!answer.isSuccess()) {
        answers.add(method + " " + answer.getHttpStatusCode());
        return;
      }
      // (client-java reports every success as 200, whatever the server's code: "ok" here)
      String after = answer.getObject().getMetadata().getResourceVersion();
      changed |= !after.equals(sent);
      answers.add(method + " ok " + (after.equals(sent) ? "same version" : "new version"));
    }

    /** A create or delete: changed if it succeeded. */
    private void unversioned(String method, KubernetesApiResponse<V1ConfigMap> answer) {
      writes++;
      changed |= answer.isSuccess();
      answers.add(method + " " + (answer.isSuccess() ? "ok" : answer.getHttpStatusCode()));
    }
  }
}
