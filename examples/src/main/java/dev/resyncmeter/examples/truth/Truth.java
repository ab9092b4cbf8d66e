package dev.resyncmeter.examples.truth;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the application itself observed, kept under the Prometheus series each count must match, so
 * the end-to-end test can compare every exported count with it one for one.
 */
public class Truth {

  private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();

  public void increment(String series) {
    counts.computeIfAbsent(series, s -> new AtomicLong()).incrementAndGet();
  }

  public void set(String series, long value) {
    counts.computeIfAbsent(series, s -> new AtomicLong()).set(value);
  }

  /** Forgets what was counted so far (from here on an agent attached now counts too). */
  public void clear() {
    counts.clear();
  }

  public long get(String series) {
    AtomicLong count = counts.get(series);
    return count == null ? 0 : count.get();
  }

  /** A series name with its labels in Prometheus' order (sorted by name), as the agent prints them. */
  public static String series(String name, String... labelPairs) {
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
  public String render() {
    StringBuilder out = new StringBuilder();
    new TreeMap<>(counts).forEach((series, count) -> out.append("truth ").append(series).append(' ').append(count.get()).append('\n'));
    return out.toString();
  }
}
