package dev.resyncmeter.examples.josdk;

import static dev.resyncmeter.examples.truth.Truth.series;

import dev.resyncmeter.examples.truth.Truth;
import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.net.URI;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The application's own fabric8 interceptor, counting under the series the agent must export: each
 * request {@link ConfigMapOperator} sends while it reconciles, by that reconcile's trigger and the
 * verb (it reads named objects, patches and creates, so the method says the verb), and every response
 * the client gets, a WebSocket upgrade included, by status code, method and host.
 */
final class RequestCounts implements Interceptor {

  private static final Map<String, String> VERB_OF_METHOD = Map.of("GET", "get", "PATCH", "patch", "POST", "create", "PUT", "update", "DELETE", "delete");

  private final Truth truth;
  /**
   * Writes sent outside the operator's reconcile code on any thread but the scenario's main one: what
   * JOSDK would write for a reconcile of its own (a finalizer, a status), which the operator's counts
   * would miss.
   */
  final AtomicInteger writesOutsideTheReconciler = new AtomicInteger();

  RequestCounts(Truth truth) {
    this.truth = truth;
  }

  @Override
  public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
    String trigger = ConfigMapOperator.triggerOnThisThread();
    if (trigger != null) {
      truth.increment(
          series("controller_reconcile_api_requests_total", "controller", ConfigMapOperator.NAME, "trigger", trigger, "verb", VERB_OF_METHOD.get(request.method())));
    } else if (!request.method().equals("GET") && !Thread.currentThread().getName().equals("main")) {
      writesOutsideTheReconciler.incrementAndGet();
    }
  }

  @Override
  public void after(HttpRequest request, HttpResponse<?> response, AsyncBody.Consumer<List<ByteBuffer>> consumer) {
    URI uri = request.uri();
    String host = uri.getHost() + ":" + uri.getPort();
    truth.increment(series("rest_client_requests_total", "code", Integer.toString(response.code()), "host", host, "method", request.method()));
    truth.increment(series("rest_client_request_duration_seconds_count", "host", host, "verb", request.method()));
  }
}
