package dev.resyncmeter.hosts.quarkus;

import static dev.resyncmeter.hosts.quarkus.Counts.series;

import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.net.URI;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;

/**
 * The application's own fabric8 interceptor, counting under the series the agent must export: each
 * request {@link ConfigMapReconciler} sends while it reconciles, by that reconcile's trigger and the
 * verb (it reads named objects, patches and creates, so the method says the verb), and every response
 * the client gets, a WebSocket upgrade included, by status code, method and host.
 */
final class RequestCounts implements Interceptor {

  private static final Map<String, String> VERB_OF_METHOD = Map.of("GET", "get", "PATCH", "patch", "POST", "create", "PUT", "update");

  private final Counts counts;

  RequestCounts(Counts counts) {
    this.counts = counts;
  }

  @Override
  public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
    // fabric8 calls this on the thread that sends the request: the reconciler's, for its own requests
    String trigger = ConfigMapReconciler.triggerOnThisThread();
    if (trigger != null) {
      counts.increment(
          series("controller_reconcile_api_requests_total", "controller", ConfigMapReconciler.NAME, "trigger", trigger, "verb", VERB_OF_METHOD.get(request.method())));
    }
  }

  @Override
  public void after(HttpRequest request, HttpResponse<?> response, AsyncBody.Consumer<List<ByteBuffer>> consumer) {
    URI uri = request.uri();
    String host = uri.getHost() + ":" + uri.getPort();
    counts.increment(series("rest_client_requests_total", "code", Integer.toString(response.code()), "host", host, "method", request.method()));
    counts.increment(series("rest_client_request_duration_seconds_count", "host", host, "verb", request.method()));
  }
}
