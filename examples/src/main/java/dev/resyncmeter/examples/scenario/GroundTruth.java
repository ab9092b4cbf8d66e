package dev.resyncmeter.examples.scenario;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the application itself observed, kept under the Prometheus series each count must match, so
 * the end-to-end test can compare every exported count with it one for one.
 */
final class GroundTruth {

  private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();

  void increment(String series) {
    counts.computeIfAbsent(series, s -> new AtomicLong()).incrementAndGet();
  }

  void set(String series, long value) {
    counts.computeIfAbsent(series, s -> new AtomicLong()).set(value);
  }

  long get(String series) {
    AtomicLong count = counts.get(series);
    return count == null ? 0 : count.get();
  }

  /** One {@code onUpdate} as the application sees it, with the outcome its handler chose. */
  void handlerUpdate(String handler, V1ConfigMap oldObject, V1ConfigMap newObject, String outcome) {
    String cause = ResyncScenario.cause(oldObject, newObject);
    boolean unchanged = ResyncScenario.unchanged(oldObject, newObject);
    increment(series("informer_notifications_total", "kind", ResyncScenario.KIND, "handler", handler, "type", "update"));
    increment(
        series(
            "informer_updates_total", "kind", ResyncScenario.KIND, "handler", handler, "cause", cause, "resource_version",
            unchanged ? "unchanged" : "changed"));
    if (unchanged) {
      increment(series("informer_noop_updates_total", "kind", ResyncScenario.KIND, "handler", handler, "cause", cause, "outcome", outcome));
    }
  }

  /** One {@code onAdd} or {@code onDelete} ({@code type} add or delete). */
  void handlerCall(String handler, String type) {
    increment(series("informer_notifications_total", "kind", ResyncScenario.KIND, "handler", handler, "type", type));
  }

  /** A series name with its labels in Prometheus' order (sorted by name), as the agent prints them. */
  static String series(String name, String... labelPairs) {
    Map<String, String> labels = new TreeMap<>();
    for (int i = 0; i < labelPairs.length; i += 2) {
      labels.put(labelPairs[i], labelPairs[i + 1]);
    }
    StringBuilder out = new StringBuilder(name).append('{');
    labels.forEach((k, v) -> out.append(k).append("=\"").append(v).append("\","));
    out.setLength(out.length() - 1);
    return out.append('}').toString();
  }

  /** One {@code truth <series> <count>} line per count, sorted. */
  String render() {
    StringBuilder out = new StringBuilder();
    new TreeMap<>(counts).forEach((series, count) -> out.append("truth ").append(series).append(' ').append(count.get()).append('\n'));
    return out.toString();
  }
}
