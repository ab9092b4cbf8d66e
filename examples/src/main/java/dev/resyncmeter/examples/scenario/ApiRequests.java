package dev.resyncmeter.examples.scenario;

import static dev.resyncmeter.examples.truth.Truth.series;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapList;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import java.net.URI;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * What the reconcilers of the api-requests and attach scenarios do with the API server, and what they
 * count of it: a read of their object on every reconcile; then, in the api-requests run, the next
 * write of {@link EffectWrites}' turn; in the attach run, a write of the object as read when its
 * resource version is one they have not seen (the server does not store or announce an unchanged
 * object); and for {@link #UNREACHABLE_KEY} a read through a client whose server is not there. Each
 * reconcile's effect is what its writes changed by the server's answers.
 */
final class ApiRequests {

  static final String UNREACHABLE_KEY = "read-unreachable";

  private final GenericKubernetesApi<V1ConfigMap, V1ConfigMapList> api;
  private final GenericKubernetesApi<V1ConfigMap, V1ConfigMapList> unreachable;
  private final String unreachableHost;
  private final Map<String, String> versionSeen = new ConcurrentHashMap<>();
  /** The failed requests, under the series they must appear as. */
  final Map<String, AtomicLong> failed = new ConcurrentHashMap<>();
  /** What the reconcilers saw of the failed reads: exception classes and messages, the port left out. */
  final Set<String> seen = ConcurrentHashMap.newKeySet();

  /** The api-requests run's writes of every kind; null in the attach run. */
  final EffectWrites writes;

  ApiRequests(ApiClient client, ApiClient unreachableClient, boolean everyKindOfWrite) {
    api = new GenericKubernetesApi<>(V1ConfigMap.class, V1ConfigMapList.class, "", "v1", "configmaps", client);
    writes = everyKindOfWrite ? new EffectWrites(api) : null;
    unreachable = new GenericKubernetesApi<>(V1ConfigMap.class, V1ConfigMapList.class, "", "v1", "configmaps", unreachableClient);
    URI base = URI.create(unreachableClient.getBasePath());
    unreachableHost = base.getHost() + ":" + base.getPort();
  }

  /**
   * The reconcile of {@code key} by {@code controller} with {@code trigger}: its requests, each counted
   * in {@code count}. Returns its effect: {@code none}, {@code unchanged} or {@code changed}.
   */
  String readAndWrite(String controller, String key, String trigger, Consumer<String> count) {
    Consumer<String> countVerb = verb -> count.accept(series("controller_reconcile_api_requests_total", "controller", controller, "trigger", trigger, "verb", verb));
    countVerb.accept("get");
    if (key.equals(UNREACHABLE_KEY)) {
      failed.computeIfAbsent(series("rest_client_requests_total", "code", "<error>", "host", unreachableHost, "method", "GET"), s -> new AtomicLong()).incrementAndGet();
      failed.computeIfAbsent(series("rest_client_request_duration_seconds_count", "host", unreachableHost, "verb", "GET"), s -> new AtomicLong()).incrementAndGet();
      try {
        unreachable.get("default", key);
        seen.add("no exception");
      } catch (RuntimeException e) {
        seen.add(describe(e));
      }
      return "none"; // a read that got no answer writes nothing
    }
    KubernetesApiResponse<V1ConfigMap> read = api.get("default", key);
    if (!read.isSuccess()) {
      throw new IllegalStateException("reading " + key + " failed: " + read.getHttpStatusCode());
    }
    V1ConfigMap object = read.getObject();
    if (writes != null) {
      return writes.write(controller, key, object, countVerb);
    }
    String version = object.getMetadata().getResourceVersion();
    if (version.equals(versionSeen.put(controller + "/" + key, version))) {
      return "none";
    }
    countVerb.accept("update");
    KubernetesApiResponse<V1ConfigMap> written = api.update(object);
    if (!written.isSuccess()) {
      throw new IllegalStateException("writing " + key + " failed: " + written.getHttpStatusCode());
    }
    // the object as read, so the server keeps its version; were it another, the write changed it
    return version.equals(written.getObject().getMetadata().getResourceVersion()) ? "unchanged" : "changed";
  }

  private String describe(Throwable e) {
    StringBuilder out = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      out.append(out.length() == 0 ? "" : " <- ").append(t.getClass().getName()).append(": ").append(t.getMessage());
    }
    return out.toString().replace(unreachableHost.substring(unreachableHost.indexOf(':') + 1), "<port>");
  }
}
