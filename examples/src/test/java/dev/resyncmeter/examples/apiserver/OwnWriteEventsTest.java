package dev.resyncmeter.examples.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapList;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.Watch;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What echoes rest on: each write that changes an object is answered with the resourceVersion its
 * watch event then carries (update, merge patch, JSON patch), and a write that changes nothing is
 * answered with the stored version and sends no event, so nothing comes back to the writer.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class OwnWriteEventsTest {

  private static final String NS = "echo";

  private EmbeddedApiServer server;
  private ApiClient client;
  private GenericKubernetesApi<V1ConfigMap, V1ConfigMapList> api;

  @BeforeEach
  void start() {
    server = EmbeddedApiServer.start();
    client = new ClientBuilder().setBasePath(server.url()).build();
    api = new GenericKubernetesApi<>(V1ConfigMap.class, V1ConfigMapList.class, "", "v1", "configmaps", client);
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void eachChangingWritesEventCarriesTheVersionItWasAnsweredWithAndANoOpWriteSendsNone() throws Exception {
    V1ConfigMap created = server.create(NS, "a", Map.of("k", "0"));
    String start = created.getMetadata().getResourceVersion();
    List<String> answered = new ArrayList<>();

    V1ConfigMap read = api.get(NS, "a").getObject();
    read.getData().put("k", "1");
    answered.add(version(api.update(read)));
    V1ConfigMap current = api.get(NS, "a").getObject();
    // a PUT of what is stored: the stored version back, no event
    assertThat(version(api.update(current))).isEqualTo(answered.get(0));

    answered.add(version(api.patch(NS, "a", V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, new V1Patch("{\"data\":{\"k\":\"2\"}}"))));
    // a merge patch that changes nothing: the stored version back, no event
    assertThat(version(api.patch(NS, "a", V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, new V1Patch("{\"data\":{\"k\":\"2\"}}")))).isEqualTo(answered.get(1));

    answered.add(version(api.patch(NS, "a", V1Patch.PATCH_FORMAT_JSON_PATCH, new V1Patch("[{\"op\":\"replace\",\"path\":\"/data/k\",\"value\":\"3\"},{\"op\":\"add\",\"path\":\"/metadata/labels\",\"value\":{\"x\":\"y\"}}]"))));
    // a JSON patch that changes nothing (a test and a replace with the same value): no event
    assertThat(version(api.patch(NS, "a", V1Patch.PATCH_FORMAT_JSON_PATCH, new V1Patch("[{\"op\":\"test\",\"path\":\"/data/k\",\"value\":\"3\"},{\"op\":\"replace\",\"path\":\"/metadata/labels/x\",\"value\":\"y\"}]"))))
        .isEqualTo(answered.get(2));
    assertThat(server.get(NS, "a").orElseThrow().getData()).containsExactlyEntriesOf(Map.of("k", "3"));
    assertThat(server.get(NS, "a").orElseThrow().getMetadata().getLabels()).containsExactlyEntriesOf(Map.of("x", "y"));
    assertThat(answered).doesNotHaveDuplicates().doesNotContain(start);

    // the watch from the create's version: one MODIFIED per changing write, with its answer's version
    List<String> events = new ArrayList<>();
    try (io.kubernetes.client.util.Watchable<V1ConfigMap> watch = api.watch(NS, listOptions(start, 1))) {
      for (Watch.Response<V1ConfigMap> event : watch) {
        events.add(event.type + " " + event.object.getMetadata().getResourceVersion());
      }
    }
    assertThat(events).containsExactly("MODIFIED " + answered.get(0), "MODIFIED " + answered.get(1), "MODIFIED " + answered.get(2));
  }

  @Test
  void aFailedJsonPatchTestOrAMissingPathChangesNothing() throws Exception {
    String version = server.create(NS, "a", Map.of("k", "0")).getMetadata().getResourceVersion();
    KubernetesApiResponse<V1ConfigMap> failedTest = api.patch(NS, "a", V1Patch.PATCH_FORMAT_JSON_PATCH, new V1Patch("[{\"op\":\"test\",\"path\":\"/data/k\",\"value\":\"1\"},{\"op\":\"replace\",\"path\":\"/data/k\",\"value\":\"2\"}]"));
    assertThat(failedTest.getHttpStatusCode()).isEqualTo(422);
    KubernetesApiResponse<V1ConfigMap> missing = api.patch(NS, "a", V1Patch.PATCH_FORMAT_JSON_PATCH, new V1Patch("[{\"op\":\"replace\",\"path\":\"/data/nope\",\"value\":\"2\"}]"));
    assertThat(missing.getHttpStatusCode()).isEqualTo(422);
    KubernetesApiResponse<V1ConfigMap> notAnArray = api.patch(NS, "a", V1Patch.PATCH_FORMAT_JSON_PATCH, new V1Patch("{\"data\":{}}"));
    assertThat(notAnArray.getHttpStatusCode()).isEqualTo(400);
    // a stale version tested is a failed test, as the precondition it stands for
    KubernetesApiResponse<V1ConfigMap> stale = api.patch(NS, "a", V1Patch.PATCH_FORMAT_JSON_PATCH, new V1Patch("[{\"op\":\"test\",\"path\":\"/metadata/resourceVersion\",\"value\":\"1\"},{\"op\":\"replace\",\"path\":\"/data/k\",\"value\":\"2\"}]"));
    assertThat(stale.getHttpStatusCode()).isEqualTo(422);
    assertThat(server.currentResourceVersion()).isEqualTo(version);
    assertThat(server.get(NS, "a").orElseThrow().getData()).containsExactlyEntriesOf(Map.of("k", "0"));
  }

  private static io.kubernetes.client.util.generic.options.ListOptions listOptions(String resourceVersion, int timeoutSeconds) {
    io.kubernetes.client.util.generic.options.ListOptions options = new io.kubernetes.client.util.generic.options.ListOptions();
    options.setResourceVersion(resourceVersion);
    options.setTimeoutSeconds(timeoutSeconds);
    return options;
  }

  private static String version(KubernetesApiResponse<V1ConfigMap> answer) {
    assertThat(answer.getHttpStatusCode()).as(String.valueOf(answer.getStatus())).isEqualTo(200);
    return answer.getObject().getMetadata().getResourceVersion();
  }
}
