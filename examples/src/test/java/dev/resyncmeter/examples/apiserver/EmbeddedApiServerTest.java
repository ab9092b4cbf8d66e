package dev.resyncmeter.examples.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.reflect.TypeToken;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapList;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Status;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.Watch;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import io.kubernetes.client.util.generic.options.PatchOptions;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.ConnectException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Specifies {@link EmbeddedApiServer} against the real, unmodified client-java 27. */
@Timeout(value = 20, unit = TimeUnit.SECONDS) // a watch read has no client timeout: never hang the build
class EmbeddedApiServerTest {

  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final String NS = "demo";

  private EmbeddedApiServer server;
  private ApiClient client;
  private CoreV1Api api;
  private SharedInformerFactory factory;

  @BeforeEach
  void start() {
    server = EmbeddedApiServer.start();
    client = new ClientBuilder().setBasePath(server.url()).build();
    api = new CoreV1Api(client);
  }

  @AfterEach
  void stop() {
    if (factory != null) {
      factory.stopAllRegisteredInformers(); // before the server, so the reflector does not retry
    }
    server.close();
  }

  @Test
  void crudThroughCoreV1Api() throws Exception {
    V1ConfigMap created =
        api.createNamespacedConfigMap(NS, configMap("a", Map.of("k", "1"))).execute();
    assertThat(created.getMetadata().getNamespace()).isEqualTo(NS);
    assertThat(created.getMetadata().getUid()).isNotBlank();
    assertThat(created.getMetadata().getCreationTimestamp()).isNotNull();
    assertThat(created.getMetadata().getResourceVersion()).isEqualTo(server.currentResourceVersion());
    assertThat(created.getKind()).isEqualTo("ConfigMap");
    assertThat(created.getApiVersion()).isEqualTo("v1");

    V1ConfigMap read = api.readNamespacedConfigMap("a", NS).execute();
    assertThat(read.getData()).containsExactlyEntriesOf(Map.of("k", "1"));
    assertThat(read.getMetadata().getUid()).isEqualTo(created.getMetadata().getUid());
    assertThat(read.getMetadata().getCreationTimestamp())
        .isEqualTo(created.getMetadata().getCreationTimestamp());

    ApiException exists =
        catchThrowableOfType(
            ApiException.class,
            () -> api.createNamespacedConfigMap(NS, configMap("a", Map.of())).execute());
    assertThat(exists.getCode()).isEqualTo(409);
    assertThat(status(exists).getReason()).isEqualTo("AlreadyExists");

    ApiException missing =
        catchThrowableOfType(
            ApiException.class, () -> api.readNamespacedConfigMap("nope", NS).execute());
    assertThat(missing.getCode()).isEqualTo(404);
    assertThat(status(missing).getReason()).isEqualTo("NotFound");
    assertThat(status(missing).getCode()).isEqualTo(404);

    read.setData(Map.of("k", "2"));
    V1ConfigMap replaced = api.replaceNamespacedConfigMap("a", NS, read).execute();
    assertThat(Long.parseLong(replaced.getMetadata().getResourceVersion()))
        .isGreaterThan(Long.parseLong(created.getMetadata().getResourceVersion()));
    assertThat(replaced.getMetadata().getUid()).isEqualTo(created.getMetadata().getUid());
    assertThat(server.get(NS, "a").orElseThrow().getData()).containsExactlyEntriesOf(Map.of("k", "2"));

    // A PUT that changes nothing is no write: same version, as on a real server.
    V1ConfigMap unchanged = api.replaceNamespacedConfigMap("a", NS, replaced).execute();
    assertThat(unchanged.getMetadata().getResourceVersion())
        .isEqualTo(replaced.getMetadata().getResourceVersion());

    read.setData(Map.of("k", "3")); // still carries the first, now stale, resourceVersion
    ApiException conflict =
        catchThrowableOfType(
            ApiException.class, () -> api.replaceNamespacedConfigMap("a", NS, read).execute());
    assertThat(conflict.getCode()).isEqualTo(409);
    assertThat(status(conflict).getReason()).isEqualTo("Conflict");

    ApiException replaceMissing =
        catchThrowableOfType(
            ApiException.class,
            () -> api.replaceNamespacedConfigMap("nope", NS, configMap("nope", Map.of())).execute());
    assertThat(replaceMissing.getCode()).isEqualTo(404);

    server.create("other", "b", Map.of());
    V1ConfigMapList namespaced = api.listNamespacedConfigMap(NS).execute();
    assertThat(namespaced.getKind()).isEqualTo("ConfigMapList");
    assertThat(namespaced.getApiVersion()).isEqualTo("v1");
    assertThat(namespaced.getMetadata().getResourceVersion()).isEqualTo(server.currentResourceVersion());
    assertThat(namespaced.getItems()).extracting(cm -> cm.getMetadata().getName()).containsExactly("a");
    V1ConfigMapList all = api.listConfigMapForAllNamespaces().execute();
    assertThat(all.getItems())
        .extracting(cm -> cm.getMetadata().getNamespace() + "/" + cm.getMetadata().getName())
        .containsExactly("demo/a", "other/b");
    assertThat(server.listRequests()).isEqualTo(2);
    assertThat(server.watchRequests()).isZero();

    V1Status deleted = api.deleteNamespacedConfigMap("a", NS).execute();
    assertThat(deleted.getStatus()).isEqualTo("Success");
    assertThat(server.get(NS, "a")).isEmpty();
    assertThat(server.size()).isEqualTo(1);
    ApiException deleteMissing =
        catchThrowableOfType(
            ApiException.class, () -> api.deleteNamespacedConfigMap("a", NS).execute());
    assertThat(deleteMissing.getCode()).isEqualTo(404);
  }

  /**
   * A JSON merge patch through client-java's GenericKubernetesApi, as a real server answers it: the
   * resourceVersion in a patch is a precondition, a patch that changes nothing is no write (same
   * version, no watch event), one that changes is, and a missing object is a 404.
   */
  @Test
  void mergePatchIsAppliedAsARealServerDoes() throws Exception {
    GenericKubernetesApi<V1ConfigMap, V1ConfigMapList> generic =
        new GenericKubernetesApi<>(V1ConfigMap.class, V1ConfigMapList.class, "", "v1", "configmaps", client);
    String rv = server.create(NS, "a", Map.of("k", "1", "gone", "x")).getMetadata().getResourceVersion();

    try (Watch<V1ConfigMap> watch = watch(NS, rv, 5)) {
      KubernetesApiResponse<V1ConfigMap> same = mergePatch(generic, "a", "{\"metadata\":{\"resourceVersion\":\"" + rv + "\"},\"data\":{\"k\":\"1\"}}");
      assertThat(same.getHttpStatusCode()).isEqualTo(200);
      assertThat(same.getObject().getMetadata().getResourceVersion()).isEqualTo(rv);
      KubernetesApiResponse<V1ConfigMap> sameWithoutVersion = mergePatch(generic, "a", "{\"data\":{\"k\":\"1\"},\"metadata\":{\"labels\":null}}");
      assertThat(sameWithoutVersion.getObject().getMetadata().getResourceVersion()).isEqualTo(rv);
      assertThat(server.currentResourceVersion()).isEqualTo(rv);

      KubernetesApiResponse<V1ConfigMap> changed = mergePatch(generic, "a", "{\"metadata\":{\"resourceVersion\":\"" + rv + "\"},\"data\":{\"k\":\"2\",\"gone\":null}}");
      assertThat(changed.getHttpStatusCode()).isEqualTo(200);
      String changedRv = changed.getObject().getMetadata().getResourceVersion();
      assertThat(Long.parseLong(changedRv)).isGreaterThan(Long.parseLong(rv));
      assertThat(changed.getObject().getData()).containsExactlyEntriesOf(Map.of("k", "2"));
      assertThat(server.get(NS, "a").orElseThrow().getData()).containsExactlyEntriesOf(Map.of("k", "2"));
      // the first event after rv is the change: the patches that changed nothing sent none
      Watch.Response<V1ConfigMap> event = watch.next();
      assertThat(event.type).isEqualTo("MODIFIED");
      assertThat(event.object.getMetadata().getResourceVersion()).isEqualTo(changedRv);

      KubernetesApiResponse<V1ConfigMap> stale = mergePatch(generic, "a", "{\"metadata\":{\"resourceVersion\":\"" + rv + "\"},\"data\":{\"k\":\"3\"}}");
      assertThat(stale.getHttpStatusCode()).isEqualTo(409);
      assertThat(stale.getStatus().getReason()).isEqualTo("Conflict");
      KubernetesApiResponse<V1ConfigMap> unconditional = mergePatch(generic, "a", "{\"data\":{\"k\":\"3\"}}");
      assertThat(unconditional.getHttpStatusCode()).isEqualTo(200);
      assertThat(Long.parseLong(unconditional.getObject().getMetadata().getResourceVersion())).isGreaterThan(Long.parseLong(changedRv));
      assertThat(watch.next().object.getData()).containsExactlyEntriesOf(Map.of("k", "3"));
    }

    KubernetesApiResponse<V1ConfigMap> missing = mergePatch(generic, "nope", "{\"data\":{\"k\":\"1\"}}");
    assertThat(missing.getHttpStatusCode()).isEqualTo(404);
    assertThat(missing.getStatus().getReason()).isEqualTo("NotFound");
    KubernetesApiResponse<V1ConfigMap> renamed = mergePatch(generic, "a", "{\"metadata\":{\"name\":\"b\"}}");
    assertThat(renamed.getHttpStatusCode()).isEqualTo(400);
  }

  /**
   * A server-side apply through client-java's GenericKubernetesApi, as a real server answers one to
   * an existing object: one that changes the object gets a new version and a watch event carrying
   * it, the same apply again changes nothing (same version, no event), a stale resourceVersion in it
   * is a 409, and without a field manager it is refused.
   */
  @Test
  void serverSideApplyOfAnExistingObjectIsAnsweredAsARealServerDoes() throws Exception {
    GenericKubernetesApi<V1ConfigMap, V1ConfigMapList> generic =
        new GenericKubernetesApi<>(V1ConfigMap.class, V1ConfigMapList.class, "", "v1", "configmaps", client);
    String rv = server.create(NS, "a", Map.of("k", "1", "kept", "x")).getMetadata().getResourceVersion();
    String applied = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"a\",\"namespace\":\"" + NS + "\"},\"data\":{\"k\":\"2\"}}";
    PatchOptions options = new PatchOptions();
    options.setFieldManager("test");
    try (Watch<V1ConfigMap> watch = watch(NS, rv, 5)) {
      KubernetesApiResponse<V1ConfigMap> changed = generic.patch(NS, "a", V1Patch.PATCH_FORMAT_APPLY_YAML, new V1Patch(applied), options);
      assertThat(changed.getHttpStatusCode()).isEqualTo(200);
      String changedRv = changed.getObject().getMetadata().getResourceVersion();
      assertThat(Long.parseLong(changedRv)).isGreaterThan(Long.parseLong(rv));
      assertThat(changed.getObject().getData()).containsExactlyInAnyOrderEntriesOf(Map.of("k", "2", "kept", "x"));

      KubernetesApiResponse<V1ConfigMap> same = generic.patch(NS, "a", V1Patch.PATCH_FORMAT_APPLY_YAML, new V1Patch(applied), options);
      assertThat(same.getHttpStatusCode()).isEqualTo(200);
      assertThat(same.getObject().getMetadata().getResourceVersion()).isEqualTo(changedRv);
      assertThat(server.currentResourceVersion()).isEqualTo(changedRv);

      // the first event after rv is the change, carrying the version it was answered with; the apply that changed nothing sent none
      Watch.Response<V1ConfigMap> event = watch.next();
      assertThat(event.type).isEqualTo("MODIFIED");
      assertThat(event.object.getMetadata().getResourceVersion()).isEqualTo(changedRv);
    }
    String stale = applied.replace("\"2\"", "\"3\"").replace("\"namespace\"", "\"resourceVersion\":\"" + rv + "\",\"namespace\"");
    assertThat(generic.patch(NS, "a", V1Patch.PATCH_FORMAT_APPLY_YAML, new V1Patch(stale), options).getHttpStatusCode()).isEqualTo(409);
    KubernetesApiResponse<V1ConfigMap> noManager = generic.patch(NS, "a", V1Patch.PATCH_FORMAT_APPLY_YAML, new V1Patch(applied.replace("\"2\"", "\"4\"")), new PatchOptions());
    assertThat(noManager.getHttpStatusCode()).isEqualTo(422);
    assertThat(server.get(NS, "a").orElseThrow().getData()).containsEntry("k", "2");
    assertThat(generic.patch(NS, "nope", V1Patch.PATCH_FORMAT_APPLY_YAML, new V1Patch(applied.replace("\"a\"", "\"nope\"")), options).getHttpStatusCode())
        .as("no creation by apply here")
        .isEqualTo(404);
  }

  @Test
  void patchTypesOtherThanMergeJsonPatchAndApplyAreRefusedWith415() throws Exception {
    GenericKubernetesApi<V1ConfigMap, V1ConfigMapList> generic =
        new GenericKubernetesApi<>(V1ConfigMap.class, V1ConfigMapList.class, "", "v1", "configmaps", client);
    V1ConfigMap a = server.create(NS, "a", Map.of("k", "1"));
    for (String patchFormat : List.of(V1Patch.PATCH_FORMAT_STRATEGIC_MERGE_PATCH)) {
      String body = "{\"data\":{\"k\":\"2\"}}";
      KubernetesApiResponse<V1ConfigMap> refused = generic.patch(NS, "a", patchFormat, new V1Patch(body), new PatchOptions());
      assertThat(refused.getHttpStatusCode()).as(patchFormat).isEqualTo(415);
      assertThat(refused.getStatus().getReason()).isEqualTo("UnsupportedMediaType");
    }
    assertThat(server.get(NS, "a").orElseThrow().getMetadata().getResourceVersion()).isEqualTo(a.getMetadata().getResourceVersion());
    // a charset parameter is still a merge patch
    HttpResponse<String> withCharset =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(server.url() + "/api/v1/namespaces/" + NS + "/configmaps/a"))
                    .method("PATCH", HttpRequest.BodyPublishers.ofString("{\"data\":{\"k\":\"2\"}}"))
                    .header("Content-Type", "application/merge-patch+json; charset=utf-8")
                    .timeout(WAIT)
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(withCharset.statusCode()).isEqualTo(200);
    assertThat(server.get(NS, "a").orElseThrow().getData()).containsExactlyEntriesOf(Map.of("k", "2"));
  }

  private static KubernetesApiResponse<V1ConfigMap> mergePatch(GenericKubernetesApi<V1ConfigMap, V1ConfigMapList> api, String name, String patch) {
    return api.patch(NS, name, V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, new V1Patch(patch));
  }

  @Test
  void javaApiWritesStampOneStrictlyIncreasingCounter() throws Exception {
    long v0 = Long.parseLong(server.currentResourceVersion());
    V1ConfigMap a = server.create(NS, "a", Map.of("k", "1"));
    V1ConfigMap a2 = server.update(NS, "a", Map.of("k", "1")); // same data: still a write
    V1ConfigMap b = server.create(NS, "b", Map.of());
    server.delete(NS, "b");
    long[] versions = {
      v0,
      rv(a),
      rv(a2),
      rv(b),
      Long.parseLong(server.currentResourceVersion())
    };
    assertThat(versions).containsExactly(v0, v0 + 1, v0 + 2, v0 + 3, v0 + 4);
    assertThat(a2.getMetadata().getUid()).isEqualTo(a.getMetadata().getUid());
    assertThatThrownBy(() -> server.create(NS, "a", Map.of())).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> server.update(NS, "b", Map.of())).isInstanceOf(NoSuchElementException.class);
    assertThatThrownBy(() -> server.delete(NS, "b")).isInstanceOf(NoSuchElementException.class);

    // Returned objects are copies: changing one does not change the store.
    a2.getData().put("k", "mutated");
    assertThat(server.get(NS, "a").orElseThrow().getData()).containsEntry("k", "1");

    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<List<Long>>> results = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int thread = t;
        results.add(
            pool.submit(
                () -> {
                  List<Long> mine = new ArrayList<>();
                  for (int i = 0; i < 50; i++) {
                    mine.add(rv(server.create(NS, "c-" + thread + "-" + i, Map.of())));
                  }
                  return mine;
                }));
      }
      Set<Long> all = new HashSet<>();
      for (Future<List<Long>> result : results) {
        List<Long> mine = result.get(10, TimeUnit.SECONDS);
        assertThat(mine).isSorted();
        all.addAll(mine);
      }
      assertThat(all).hasSize(200);
      assertThat(server.size()).isEqualTo(201);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void informerSeesEveryAddUpdateAndDeleteExactly() throws Exception {
    server.create(NS, "pre-1", Map.of());
    server.create("other", "pre-2", Map.of());
    CountingHandler handler = new CountingHandler();
    SharedIndexInformer<V1ConfigMap> informer = startInformer(handler);
    awaitTrue(() -> handler.adds.get() == 2, "initial list delivered");

    api.createNamespacedConfigMap(NS, configMap("c-1", Map.of())).execute();
    server.create(NS, "c-2", Map.of());
    server.create("other", "c-3", Map.of());
    server.update(NS, "c-1", Map.of("v", "1"));
    server.update(NS, "c-1", Map.of("v", "2"));
    server.update(NS, "pre-1", Map.of("v", "1"));
    V1ConfigMap c2 = api.readNamespacedConfigMap("c-2", NS).execute();
    c2.setData(Map.of("v", "1"));
    api.replaceNamespacedConfigMap("c-2", NS, c2).execute();
    server.delete(NS, "c-2");
    api.deleteNamespacedConfigMap("pre-1", NS).execute();

    awaitTrue(
        () -> handler.adds.get() == 5 && handler.updates.get() == 4 && handler.deletes.get() == 2,
        "watch events delivered");
    Thread.sleep(200); // nothing more may trickle in
    assertThat(handler.adds.get()).isEqualTo(5);
    assertThat(handler.updates.get()).isEqualTo(4);
    assertThat(handler.deletes.get()).isEqualTo(2);
    assertThat(handler.updatePairs)
        .allSatisfy(pair -> assertThat(rv(pair[1])).isGreaterThan(rv(pair[0])));
    assertThat(informer.getIndexer().listKeys())
        .containsExactlyInAnyOrder("demo/c-1", "other/c-3", "other/pre-2");
    awaitTrue(
        () -> informer.lastSyncResourceVersion().equals(server.currentResourceVersion()),
        "informer at the store's version");
    assertThat(server.listRequests()).isEqualTo(1);
    assertThat(server.watchRequests()).isEqualTo(1);
  }

  @Test
  void expiredWatchMakesTheInformerRelistOnceAndKeepsWatching() throws Exception {
    for (String name : List.of("a", "b", "c")) {
      server.create(NS, name, Map.of("n", name));
    }
    CountingHandler handler = new CountingHandler();
    startInformer(handler);
    awaitTrue(() -> handler.adds.get() == 3, "initial list delivered");
    long lists = server.listRequests();
    long watches = server.watchRequests();
    assertThat(lists).isEqualTo(1);

    server.expireWatches();

    awaitTrue(() -> server.listRequests() == lists + 1, "relist after 410");
    awaitTrue(() -> handler.updates.get() == 3, "relist delivered as updates");
    awaitTrue(
        () -> server.watchRequests() == watches + 1 && server.openWatchCount() == 1,
        "watching again from the relist's version");
    assertThat(handler.updatePairs)
        .allSatisfy(
            pair -> {
              assertThat(pair[1]).isNotSameAs(pair[0]);
              assertThat(pair[1].getMetadata().getResourceVersion())
                  .isEqualTo(pair[0].getMetadata().getResourceVersion());
            });
    assertThat(handler.updatePairs)
        .extracting(pair -> pair[1].getMetadata().getName())
        .containsExactlyInAnyOrder("a", "b", "c");
    assertThat(handler.adds.get()).isEqualTo(3);
    assertThat(handler.deletes.get()).isZero();

    server.create(NS, "d", Map.of());
    server.update(NS, "a", Map.of("n", "changed"));
    awaitTrue(() -> handler.adds.get() == 4 && handler.updates.get() == 4, "live events after relist");
    V1ConfigMap[] live = handler.updatePairs.get(3);
    assertThat(live[1].getData()).containsEntry("n", "changed");
    assertThat(rv(live[1])).isGreaterThan(rv(live[0]));
    assertThat(server.listRequests()).isEqualTo(lists + 1);
    assertThat(server.watchRequests()).isEqualTo(watches + 1);
  }

  @Test
  void watchReplaysHistoryThenStreamsLiveEventsAndEndsAtTimeoutSeconds() throws Exception {
    String from = server.currentResourceVersion();
    server.create(NS, "a", Map.of());
    server.create("other", "x", Map.of()); // another namespace: not in this watch
    server.update(NS, "a", Map.of("v", "1"));
    server.delete(NS, "a");

    long started = System.nanoTime();
    try (Watch<V1ConfigMap> watch = watch(NS, from, 2)) {
      List<String> replayed = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        Watch.Response<V1ConfigMap> event = watch.next();
        replayed.add(event.type + " " + event.object.getMetadata().getName());
      }
      assertThat(replayed).containsExactly("ADDED a", "MODIFIED a", "DELETED a");
      assertThat(server.awaitOpenWatches(1, WAIT)).isTrue();

      V1ConfigMap b = server.create(NS, "b", Map.of());
      Watch.Response<V1ConfigMap> live = watch.next();
      assertThat(live.type).isEqualTo("ADDED");
      assertThat(live.object.getMetadata().getResourceVersion())
          .isEqualTo(b.getMetadata().getResourceVersion());
      assertThat(live.object.getKind()).isEqualTo("ConfigMap");

      assertThat(watch.hasNext()).isFalse(); // timeoutSeconds=2 ends the stream
    }
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isBetween(Duration.ofMillis(1500), Duration.ofSeconds(6));
    awaitTrue(() -> server.openWatchCount() == 0, "watch closed on the server");
  }

  @Test
  void expiredVersionsGetA410ErrorEventWhileListsAreAlwaysServed() throws Exception {
    server.create(NS, "a", Map.of());
    String old = server.currentResourceVersion();

    try (Watch<V1ConfigMap> open = watch(NS, old, 10)) {
      assertThat(server.awaitOpenWatches(1, WAIT)).isTrue();
      server.expireWatches();
      assertExpired(open);
    }
    awaitTrue(() -> server.openWatchCount() == 0, "expired watch closed on the server");

    try (Watch<V1ConfigMap> tooOld = watch(NS, old, 10)) {
      assertExpired(tooOld);
    }
    assertThat(server.openWatchCount()).isZero();

    // A list is served whatever version it asks for, and its version can be watched from.
    V1ConfigMapList list = api.listNamespacedConfigMap(NS).resourceVersion(old).execute();
    assertThat(list.getItems()).hasSize(1);
    assertThat(list.getMetadata().getResourceVersion()).isEqualTo(server.currentResourceVersion());
    assertThat(Long.parseLong(list.getMetadata().getResourceVersion())).isGreaterThan(Long.parseLong(old));
    try (Watch<V1ConfigMap> fresh = watch(NS, list.getMetadata().getResourceVersion(), 10)) {
      assertThat(server.awaitOpenWatches(1, WAIT)).isTrue();
      server.create(NS, "b", Map.of());
      Watch.Response<V1ConfigMap> event = fresh.next();
      assertThat(event.type).isEqualTo("ADDED");
      assertThat(event.object.getMetadata().getName()).isEqualTo("b");
    }
  }

  @Test
  void speaksChunkedNdjsonAndRealStatusBodiesOverPlainHttp() throws Exception {
    server.create(NS, "a", Map.of("k", "v"));
    server.create("other", "b", Map.of());

    // watch=1 without a resourceVersion: the current state as ADDED events, then the timeout.
    HttpURLConnection watch = open("/api/v1/configmaps?watch=1&timeoutSeconds=1");
    assertThat(watch.getResponseCode()).isEqualTo(200);
    assertThat(watch.getHeaderField("Transfer-Encoding")).isEqualTo("chunked");
    List<JsonObject> events = new ArrayList<>();
    try (BufferedReader in =
        new BufferedReader(new InputStreamReader(watch.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = in.readLine()) != null; ) {
        events.add(JsonParser.parseString(line).getAsJsonObject());
      }
    }
    assertThat(events).hasSize(2);
    assertThat(events)
        .allSatisfy(
            e -> {
              assertThat(e.get("type").getAsString()).isEqualTo("ADDED");
              assertThat(e.getAsJsonObject("object").get("kind").getAsString()).isEqualTo("ConfigMap");
            });
    assertThat(events.get(0).getAsJsonObject("object").getAsJsonObject("metadata").get("creationTimestamp").getAsString())
        .matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ");

    JsonObject list = body(open("/api/v1/namespaces/demo/configmaps?limit=500"));
    assertThat(list.get("kind").getAsString()).isEqualTo("ConfigMapList");
    assertThat(list.getAsJsonArray("items")).hasSize(1);
    assertThat(list.getAsJsonArray("items").get(0).getAsJsonObject().has("kind")).isFalse();

    HttpURLConnection unknown = open("/api/v1/pods");
    assertThat(unknown.getResponseCode()).isEqualTo(404);
    assertThat(errorBody(unknown).get("kind").getAsString()).isEqualTo("Status");
    HttpURLConnection selector = open("/api/v1/configmaps?labelSelector=app%3Dx");
    assertThat(selector.getResponseCode()).isEqualTo(400);
    assertThat(errorBody(selector).get("reason").getAsString()).isEqualTo("BadRequest");
  }

  @Test
  void closeEndsOpenWatchesAndStopsTheServerPromptly() throws Exception {
    server.create(NS, "a", Map.of());
    Watch<V1ConfigMap> first = watch(NS, server.currentResourceVersion(), null);
    Watch<V1ConfigMap> second = watch(null, "0", null);
    assertThat(server.awaitOpenWatches(2, WAIT)).isTrue();
    assertThat(second.next().type).isEqualTo("ADDED");

    long started = System.nanoTime();
    server.close();
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(3));
    server.close(); // idempotent

    assertThat(server.openWatchCount()).isZero();
    assertThat(first.hasNext()).isFalse();
    assertThat(second.hasNext()).isFalse();
    first.close();
    second.close();
    ApiException refused =
        catchThrowableOfType(ApiException.class, () -> api.listNamespacedConfigMap(NS).execute());
    assertThat(refused).hasRootCauseInstanceOf(ConnectException.class);
    awaitTrue(
        () ->
            Thread.getAllStackTraces().keySet().stream()
                .noneMatch(t -> t.isAlive() && t.getName().startsWith("embedded-apiserver-")),
        "server threads gone");
  }

  // ---------------------------------------------------------------- helpers

  private SharedIndexInformer<V1ConfigMap> startInformer(CountingHandler handler)
      throws InterruptedException {
    factory = new SharedInformerFactory(client);
    SharedIndexInformer<V1ConfigMap> informer =
        factory.sharedIndexInformerFor(
            new GenericKubernetesApi<>(
                V1ConfigMap.class, V1ConfigMapList.class, "", "v1", "configmaps", client),
            V1ConfigMap.class,
            0);
    informer.addEventHandler(handler);
    factory.startAllRegisteredInformers();
    awaitTrue(informer::hasSynced, "informer synced");
    assertThat(server.awaitOpenWatches(1, WAIT)).isTrue();
    return informer;
  }

  private Watch<V1ConfigMap> watch(String namespace, String resourceVersion, Integer timeoutSeconds)
      throws ApiException {
    okhttp3.Call call =
        namespace == null
            ? api.listConfigMapForAllNamespaces()
                .watch(true)
                .resourceVersion(resourceVersion)
                .timeoutSeconds(timeoutSeconds)
                .buildCall(null)
            : api.listNamespacedConfigMap(namespace)
                .watch(true)
                .resourceVersion(resourceVersion)
                .timeoutSeconds(timeoutSeconds)
                .buildCall(null);
    return Watch.createWatch(
        client, call, new TypeToken<Watch.Response<V1ConfigMap>>() {}.getType());
  }

  private static void assertExpired(Watch<V1ConfigMap> watch) {
    Watch.Response<V1ConfigMap> event = watch.next();
    assertThat(event.type).isEqualTo("ERROR");
    assertThat(event.status.getCode()).isEqualTo(410);
    assertThat(event.status.getReason()).isEqualTo("Expired");
    assertThat(event.status.getStatus()).isEqualTo("Failure");
    assertThat(watch.hasNext()).isFalse();
  }

  private HttpURLConnection open(String pathAndQuery) throws Exception {
    HttpURLConnection connection =
        (HttpURLConnection) URI.create(server.url() + pathAndQuery).toURL().openConnection();
    connection.setConnectTimeout(5_000);
    connection.setReadTimeout(5_000);
    return connection;
  }

  private static JsonObject body(HttpURLConnection connection) throws Exception {
    try (var in = connection.getInputStream()) {
      return JsonParser.parseString(new String(in.readAllBytes(), StandardCharsets.UTF_8)).getAsJsonObject();
    }
  }

  private static JsonObject errorBody(HttpURLConnection connection) throws Exception {
    try (var in = connection.getErrorStream()) {
      return JsonParser.parseString(new String(in.readAllBytes(), StandardCharsets.UTF_8)).getAsJsonObject();
    }
  }

  private static V1ConfigMap configMap(String name, Map<String, String> data) {
    return new V1ConfigMap().metadata(new V1ObjectMeta().name(name)).data(data);
  }

  private static V1Status status(ApiException e) {
    return JSON.deserialize(e.getResponseBody(), V1Status.class);
  }

  private static long rv(V1ConfigMap cm) {
    return Long.parseLong(cm.getMetadata().getResourceVersion());
  }

  private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for: " + what);
      }
      Thread.sleep(10);
    }
  }

  /** Counts what the informer delivers; keeps the (old, new) pairs of updates. */
  private static final class CountingHandler implements ResourceEventHandler<V1ConfigMap> {
    final AtomicInteger adds = new AtomicInteger();
    final AtomicInteger updates = new AtomicInteger();
    final AtomicInteger deletes = new AtomicInteger();
    final List<V1ConfigMap[]> updatePairs = new CopyOnWriteArrayList<>();

    @Override
    public void onAdd(V1ConfigMap obj) {
      adds.incrementAndGet();
    }

    @Override
    public void onUpdate(V1ConfigMap oldObj, V1ConfigMap newObj) {
      updatePairs.add(new V1ConfigMap[] {oldObj, newObj});
      updates.incrementAndGet(); // after the pair, so a reader that sees the count sees the pair
    }

    @Override
    public void onDelete(V1ConfigMap obj, boolean deletedFinalStateUnknown) {
      deletes.incrementAndGet();
    }
  }
}
