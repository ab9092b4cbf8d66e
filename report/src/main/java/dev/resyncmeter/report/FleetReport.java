package dev.resyncmeter.report;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The report of many pods read from Prometheus over a range: one group, or one per value of the
 * {@code --by} labels. {@code pods} counts the scrape targets read; {@code podsCountedFromFirstSample}
 * those whose counts begin at their first sample in the range (they started before it, or do not say
 * when they started): where they are, the counts are an estimate, and exact everywhere else.
 */
public record FleetReport(
    String source, String selector, Instant end, long rangeMillis, List<String> by, int pods, int podsCountedFromFirstSample, List<Group> groups) {

  /** {@code labels}: the {@code --by} labels' values (empty without {@code --by}). */
  public record Group(Map<String, String> labels, int pods, int podsCountedFromFirstSample, ResyncReport report) {}

  public double rangeSeconds() {
    return rangeMillis / 1000.0;
  }

  /** Said under the title: how many pods, and whether the counts are exact. */
  static String exactness(int pods, int podsCountedFromFirstSample) {
    String read = pods + (pods == 1 ? " pod read" : " pods read");
    if (podsCountedFromFirstSample == 0) {
      return read + "; exact: " + (pods == 1 ? "it" : "each") + " started inside the range";
    }
    return read + "; an estimate: " + podsCountedFromFirstSample + " started before the range, counted from " + (podsCountedFromFirstSample == 1 ? "its" : "their")
        + " first sample in it";
  }

  /**
   * Said under the title when the pods' series cover less than the range (the report's window):
   * the time the rates are per second of. Null when they cover it all.
   */
  static String coverage(int pods, double windowSeconds, double rangeSeconds) {
    String covered = ResyncReport.seconds(windowSeconds);
    if (windowSeconds >= rangeSeconds || covered.equals(ResyncReport.seconds(rangeSeconds))) {
      return null;
    }
    return (pods == 1 ? "its" : "their") + " series cover " + covered + " of the " + ResyncReport.seconds(rangeSeconds) + " range: rates are per second of those "
        + covered;
  }

  /** {@code cluster="eu-1", namespace="payments"}, for a group's title. */
  static String labelText(Map<String, String> labels) {
    StringBuilder out = new StringBuilder();
    labels.forEach((name, value) -> out.append(out.length() == 0 ? "" : ", ").append(name).append("=\"").append(value).append('"'));
    return out.toString();
  }

  /** What the report read, for a title: {@code URL {selector}, END minus RANGE}. */
  String title() {
    return source + (selector.isEmpty() ? "" : " " + selector) + ", " + end.minusMillis(rangeMillis) + " to " + end;
  }
}
