package dev.resyncmeter.examples.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.reflect.TypeToken;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.Watch;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link EmbeddedApiServer#updateWithoutEvent}: the drift a lost watch event leaves. */
@Timeout(value = 20, unit = TimeUnit.SECONDS) // a watch read has no client timeout: never hang the build
class UpdateWithoutEventTest {

  private static final String NS = "demo";

  @Test
  void aGetAndAListShowTheChangeWithANewVersionAndNoWatchHearsOfIt() throws Exception {
    try (EmbeddedApiServer server = EmbeddedApiServer.start()) {
      ApiClient client = new ClientBuilder().setBasePath(server.url()).build();
      CoreV1Api api = new CoreV1Api(client);
      V1ConfigMap created = server.create(NS, "a", Map.of("log-level", "info"));
      String before = server.currentResourceVersion();

      V1ConfigMap drifted = server.updateWithoutEvent(NS, "a", Map.of("log-level", "debug"));
      V1ConfigMap b = server.create(NS, "b", Map.of());

      long createdVersion = Long.parseLong(created.getMetadata().getResourceVersion());
      assertThat(Long.parseLong(drifted.getMetadata().getResourceVersion())).isEqualTo(createdVersion + 1);
      V1ConfigMap read = api.readNamespacedConfigMap("a", NS).execute();
      assertThat(read.getData()).isEqualTo(Map.of("log-level", "debug"));
      assertThat(read.getMetadata().getResourceVersion()).isEqualTo(drifted.getMetadata().getResourceVersion());
      assertThat(read.getMetadata().getUid()).isEqualTo(created.getMetadata().getUid());
      assertThat(api.listNamespacedConfigMap(NS).execute().getItems())
          .extracting(c -> c.getMetadata().getName() + " " + c.getData())
          .containsExactly("a {log-level=debug}", "b {}");

      // a watch from before the drift replays what came after it: b's creation, and nothing for a
      okhttp3.Call call = api.listNamespacedConfigMap(NS).watch(true).resourceVersion(before).timeoutSeconds(1).buildCall(null);
      try (Watch<V1ConfigMap> watch = Watch.createWatch(client, call, new TypeToken<Watch.Response<V1ConfigMap>>() {}.getType())) {
        Watch.Response<V1ConfigMap> event = watch.next();
        assertThat(event.type + " " + event.object.getMetadata().getName() + " " + event.object.getMetadata().getResourceVersion())
            .isEqualTo("ADDED b " + b.getMetadata().getResourceVersion());
        assertThat(watch.hasNext()).isFalse(); // timeoutSeconds=1 ends the stream, with no event for a
      }
    }
  }
}
