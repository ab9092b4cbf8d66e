package dev.resyncmeter.hosts.quarkus;

import jakarta.inject.Singleton;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the application itself observed, kept under the Prometheus series each count must match (as
 * the examples' {@code Truth} does; the examples are not part of this application), so the end-to-end
 * test can compare every exported count with it one for one.
 */
@Singleton
public class Counts {

  private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();

  void increment(String series) {
    counts.computeIfAbsent(series, s -> new AtomicLong()).incrementAndGet();
  }

  void set(String series, long value) {
    counts.computeIfAbsent(series, s -> new AtomicLong()).set(value);
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
