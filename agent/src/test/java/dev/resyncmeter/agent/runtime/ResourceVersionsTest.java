package dev.resyncmeter.agent.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The version the objects the client libraries send and get back carry, whichever library made them. */
class ResourceVersionsTest {

  @Test
  void clientJavasModelObjectsAndPatches() throws ReflectiveOperationException {
    assertThat(ResourceVersions.of(new V1ConfigMap().metadata(new V1ObjectMeta().name("a").resourceVersion("12")))).isEqualTo("12");
    assertThat(ResourceVersions.of(new V1ConfigMap().metadata(new V1ObjectMeta().name("a")))).isNull();
    assertThat(ResourceVersions.of(new V1ConfigMap())).as("no metadata").isNull();
    assertThat(ResourceVersions.of(new V1Patch("{\"metadata\":{\"resourceVersion\":\"13\"},\"data\":{\"v\":\"2\"}}"))).isEqualTo("13");
    assertThat(ResourceVersions.of(new V1Patch("{\"data\":{\"v\":\"2\"}}"))).isNull();
    assertThat(ResourceVersions.of(new V1Patch("[{\"op\":\"replace\",\"path\":\"/data/v\",\"value\":\"2\"}]"))).as("a JSON patch").isNull();
  }

  @Test
  void fabric8sModelObjects() throws ReflectiveOperationException {
    assertThat(ResourceVersions.of(new ConfigMapBuilder().withNewMetadata().withName("a").withResourceVersion("21").endMetadata().build())).isEqualTo("21");
    GenericKubernetesResource generic = new GenericKubernetesResource();
    assertThat(ResourceVersions.of(generic)).isNull();
    generic.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder().withResourceVersion("22").build());
    assertThat(ResourceVersions.of(generic)).isEqualTo("22");
  }

  @Test
  void mapsAndJsonText() throws ReflectiveOperationException {
    assertThat(ResourceVersions.of(Map.of("metadata", Map.of("resourceVersion", "31")))).isEqualTo("31");
    assertThat(ResourceVersions.of(Map.of("metadata", Map.of("name", "a")))).isNull();
    assertThat(ResourceVersions.of("{\"metadata\":{\"resourceVersion\":\"32\"}}")).isEqualTo("32");
    assertThat(ResourceVersions.of("{\"metadata\":{\"resourceVersion\":\"33\"}}".getBytes(java.nio.charset.StandardCharsets.UTF_8))).isEqualTo("33");
  }

  @Test
  void anythingElseCarriesNone() throws ReflectiveOperationException {
    assertThat(ResourceVersions.of(null)).isNull();
    assertThat(ResourceVersions.of(42)).isNull();
    assertThat(ResourceVersions.of(new Object())).isNull();
  }
}
