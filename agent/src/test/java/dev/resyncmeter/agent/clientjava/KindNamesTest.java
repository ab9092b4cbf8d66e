package dev.resyncmeter.agent.clientjava;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class KindNamesTest {

  static class V1ConfigMap {}

  static class V1beta1CronJob {}

  static class V2HorizontalPodAutoscaler {}

  static class V1alpha2ResourceClaim {}

  static class MyCustomResource {}

  static class V1 {}

  @Test
  void dropsTheApiVersionPrefixOfGeneratedModels() {
    assertThat(KindNames.of(V1ConfigMap.class)).isEqualTo("ConfigMap");
    assertThat(KindNames.of(V1beta1CronJob.class)).isEqualTo("CronJob");
    assertThat(KindNames.of(V2HorizontalPodAutoscaler.class)).isEqualTo("HorizontalPodAutoscaler");
    assertThat(KindNames.of(V1alpha2ResourceClaim.class)).isEqualTo("ResourceClaim");
  }

  @Test
  void keepsOtherNamesAsTheyAre() {
    assertThat(KindNames.of(MyCustomResource.class)).isEqualTo("MyCustomResource");
    assertThat(KindNames.of(V1.class)).isEqualTo("V1");
    assertThat(KindNames.of(null)).isEqualTo("unknown");
  }
}
