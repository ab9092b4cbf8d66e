package dev.resyncmeter.examples.fabric8;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import java.io.IOException;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.Queue;

/**
 * fabric8's mock API server in CRUD mode on a loopback port, in process: it stores what is created,
 * serves lists and WebSocket watches, and bumps one global resource version on every change. It has
 * no 410 of its own: {@link #expireWatchOnce} makes one watch close with one.
 */
public final class MockApiServer implements AutoCloseable {

  private final Map<ServerRequest, Queue<ServerResponse>> expectations = new HashMap<>();
  private final KubernetesMockServer server;
  private final KubernetesClient client;

  private MockApiServer() throws IOException {
    // Mixed: one-shot expectations are answered first, everything else by the CRUD store.
    server = new KubernetesMockServer(new Context(), new MockWebServer(), expectations, new KubernetesMixedDispatcher(expectations), false);
    server.init(InetAddress.getLoopbackAddress(), 0);
    client = server.createClient(defaultHttpClient());
  }

  public static MockApiServer start() throws IOException {
    return new MockApiServer();
  }

  public KubernetesClient client() {
    return client;
  }

  /**
   * The next watch of {@code plural} in {@code namespace} from {@code resourceVersion} closes after
   * {@code afterMillis} with 410 Gone, as an API server does when the version has expired.
   */
  public void expireWatchOnce(String plural, String namespace, String resourceVersion, long afterMillis) {
    server
        .expect()
        .get()
        .withPath(
            "/api/v1/namespaces/" + namespace + "/" + plural + "?allowWatchBookmarks=true&resourceVersion=" + resourceVersion
                + "&timeoutSeconds=600&watch=true")
        .andUpgradeToWebSocket()
        .open()
        .waitFor(afterMillis)
        .andEmit(new WatchEvent(new StatusBuilder().withCode(410).withMessage("too old resource version").build(), "ERROR"))
        .done()
        .once();
  }

  /**
   * A client of this server whose HTTP client {@code factory} makes (null: {@link #defaultHttpClient}),
   * with the application's own {@code interceptor} on it.
   */
  public KubernetesClient client(HttpClient.Factory factory, Interceptor interceptor) {
    return server.createClient(
        builder -> {
          builder.withHttpClientFactory(factory != null ? factory : defaultHttpClient());
          builder.withHttpClientBuilderConsumer(http -> http.addOrReplaceInterceptor("application-counts", interceptor));
        });
  }

  /**
   * The HTTP client fabric8 would pick if its JDK client were not on the class path too (the JOSDK
   * scenario's second client): the highest priority of the others, Vert.x 4 in fabric8 7, Vert.x 5 in 8.
   */
  static HttpClient.Factory defaultHttpClient() {
    HttpClient.Factory chosen = null;
    for (HttpClient.Factory factory : java.util.ServiceLoader.load(HttpClient.Factory.class, MockApiServer.class.getClassLoader())) {
      if (!factory.getClass().getName().startsWith("io.fabric8.kubernetes.client.jdkhttp.") && (chosen == null || factory.priority() > chosen.priority())) {
        chosen = factory;
      }
    }
    if (chosen == null) {
      throw new IllegalStateException("no fabric8 HTTP client but the JDK one on the class path");
    }
    return chosen;
  }

  /**
   * Changes {@code data[key]} of the ConfigMap {@code namespace/name} as another client would: a JSON
   * merge patch sent with the JDK's own HTTP client, which no agent instruments. A change made with
   * {@link #client()} would be a write of this process, whose update is an echo of its own.
   */
  public void changeFromOutside(String namespace, String name, String key, String value) throws IOException, InterruptedException {
    mergePatchByAnotherClient(client, namespace, name, "{\"data\":{\"" + key + "\":\"" + value + "\"}}");
  }

  /**
   * A JSON merge patch of a ConfigMap sent by another client than the application's: the JDK's own HTTP
   * client, which the agent does not see, so its event is no echo of the application's writes (it
   * stands for someone else's edit). Returns the object's new resourceVersion.
   */
  public static String mergePatchByAnotherClient(KubernetesClient client, String namespace, String name, String patch) {
    java.net.URI uri = java.net.URI.create(client.getMasterUrl().toString().replaceAll("/$", "") + "/api/v1/namespaces/" + namespace + "/configmaps/" + name);
    java.net.http.HttpResponse<String> response;
    try {
      response =
          java.net.http.HttpClient.newHttpClient()
              .send(
                  java.net.http.HttpRequest.newBuilder(uri)
                      .method("PATCH", java.net.http.HttpRequest.BodyPublishers.ofString(patch))
                      .header("Content-Type", "application/merge-patch+json")
                      .timeout(java.time.Duration.ofSeconds(30))
                      .build(),
                  java.net.http.HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException("another client's patch of " + name, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted patching " + name, e);
    }
    if (response.statusCode() / 100 != 2) {
      throw new IllegalStateException("another client's patch of " + name + " got " + response.statusCode() + ": " + response.body());
    }
    return io.fabric8.kubernetes.client.utils.Serialization.unmarshal(response.body(), io.fabric8.kubernetes.api.model.ConfigMap.class).getMetadata().getResourceVersion();
  }

  /** Requests served so far (lists, watches, changes). */
  public int requestCount() {
    return server.getRequestCount();
  }

  @Override
  public void close() {
    client.close();
    server.destroy();
  }
}
