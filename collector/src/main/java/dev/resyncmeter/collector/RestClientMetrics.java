package dev.resyncmeter.collector;

import io.prometheus.metrics.model.snapshots.Labels;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * client-go's REST client metrics for a Java client: every HTTP request the client library sent, by
 * status code, method and host, and its latency until the response started, by method and host. A
 * request that got no response (refused, timed out, reset) counts under the code {@code <error>}, as
 * in client-go. Hosts are capped like any other label; methods outside HTTP's own are one value.
 */
public final class RestClientMetrics {

  /** The code of a request that got no response. */
  public static final int NO_RESPONSE = -1;

  static final String ERROR_CODE = "<error>";

  private static final java.util.Set<String> METHODS = java.util.Set.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "CONNECT", "TRACE");

  private static final int MAX_CACHED_SERIES = 1000;

  private final CappedLabel hosts;
  /** By what a request arrives with (the host and method as given): its series, found in one lookup. */
  private final Map<Sent, Series> series = new ConcurrentHashMap<>();
  private volatile Last last;
  private final Map<Requests, LongAdder> requests = new ConcurrentHashMap<>();
  private final Map<Latency, ConcurrentHistogram> latencies = new ConcurrentHashMap<>();

  RestClientMetrics(CappedLabel hosts) {
    this.hosts = hosts;
  }

  /**
   * A request to {@code host} on {@code port} with {@code method} ended with {@code code}, or
   * {@link #NO_RESPONSE}, {@code nanos} after it was sent.
   */
  public void requestFinished(String host, int port, String method, int code, long nanos) {
    Last recent = last;
    Series found;
    if (recent != null && recent.code == code && recent.port == port && recent.host.equals(host) && recent.method.equals(method)) {
      found = recent.series; // most requests are like the one before: no lookup, no key to allocate
    } else {
      Sent sent = new Sent(host, port, method, code);
      found = series.get(sent);
      if (found == null) {
        // a bounded cache: past it (hosts beyond the cap), each request looks its series up afresh
        found = series.size() < MAX_CACHED_SERIES ? series.computeIfAbsent(sent, this::seriesOf) : seriesOf(sent);
      }
      last = new Last(host, port, method, code, found);
    }
    found.requests.increment();
    found.latency.record(nanos);
  }

  private Series seriesOf(Sent sent) {
    String admittedHost = hosts.admit(sent.host + ":" + sent.port);
    String upper = sent.method.toUpperCase(Locale.ROOT);
    String exportedMethod = METHODS.contains(upper) ? upper : "OTHER";
    return new Series(
        requests.computeIfAbsent(new Requests(sent.code < 0 ? ERROR_CODE : Integer.toString(sent.code), admittedHost, exportedMethod), k -> new LongAdder()),
        latencies.computeIfAbsent(new Latency(admittedHost, exportedMethod), k -> new ConcurrentHistogram(Buckets.CLIENT_GO_REST_CLIENT)));
  }

  void export(Export out) {
    requests.forEach(
        (key, n) ->
            out.counter(
                "rest_client_requests",
                "Number of HTTP requests, partitioned by status code, method, and host.",
                Labels.of("code", key.code, "host", key.host, "method", key.method),
                n.sum()));
    latencies.forEach(
        (key, histogram) ->
            out.histogram(
                "rest_client_request_duration_seconds",
                "Request latency in seconds. Broken down by verb, and host.",
                Buckets.CLIENT_GO_REST_CLIENT.dataPoint(Labels.of("host", key.host, "verb", key.method), histogram.read())));
  }

  private record Sent(String host, int port, String method, int code) {}

  private record Series(LongAdder requests, ConcurrentHistogram latency) {}

  private record Last(String host, int port, String method, int code, Series series) {}

  private record Requests(String code, String host, String method) {}

  private record Latency(String host, String method) {}
}
