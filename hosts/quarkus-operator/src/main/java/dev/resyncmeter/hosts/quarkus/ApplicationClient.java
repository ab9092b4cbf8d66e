package dev.resyncmeter.hosts.quarkus;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * The application's KubernetesClient, in place of Quarkus's (a default bean): built as Quarkus builds
 * its own, from Quarkus's client configuration and serialization, with the same HTTP client factory
 * (found by fabric8's service loader: Quarkus's, which makes fabric8's Vert.x client on Quarkus's
 * Vert.x), plus the application's interceptor. Quarkus 3.33 offers a customizer of the client's
 * {@code Config} only, not of its HTTP client, hence a producer. The operator uses this client too.
 */
@Singleton
public class ApplicationClient {

  @Produces
  @Singleton
  KubernetesClient kubernetesClient(KubernetesSerialization serialization, Config config, Counts counts) {
    return new KubernetesClientBuilder()
        .withKubernetesSerialization(serialization)
        .withConfig(config)
        .withHttpClientBuilderConsumer(http -> http.addOrReplaceInterceptor("application-counts", new RequestCounts(counts)))
        .build();
  }

  void close(@Disposes KubernetesClient client) {
    client.close();
  }
}
