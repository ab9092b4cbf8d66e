package dev.resyncmeter.bench;

import dev.resyncmeter.testkit.Scrape;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * resync-meter's counters beside the counts a program kept itself. Read again for a short while until
 * they agree: the last item's exit advice may still run when the program reports its counts.
 */
final class AgentCounts {

  /** What one series must read: {@code metric} summed over its series whose labels hold all of {@code labels}. */
  record Expected(String series, double value, String metric, String... labels) {}

  /** One series as the agent counted it beside what it must be; {@code present}: the scrape has the metric at all. */
  record Count(String series, double agent, double expected, boolean present) {
    boolean matches() {
      return agent == expected;
    }

    /** "workqueue_adds_total 2000 of 2000", or "... absent from the scrape, 2000 expected". */
    String text() {
      return present || expected == 0
          ? String.format("%s %.0f of %.0f", series, agent, expected)
          : String.format("%s absent from the scrape, %.0f expected", series, expected);
    }
  }

  /** The last scrape read and the counts in it. */
  record Reading(Scrape scrape, List<Count> counts) {
    boolean allMatch() {
      return counts.stream().allMatch(Count::matches);
    }

    String text() {
      return counts.stream().map(Count::text).collect(Collectors.joining(", "));
    }
  }

  private AgentCounts() {}

  /** Compares {@code first}, then fresh scrapes of {@code url} 250 ms apart, with {@code expected}, until all match (5 s at most). */
  static Reading await(String url, Scrape first, List<Expected> expected) throws Exception {
    Reading reading = read(first, expected);
    for (int attempt = 1; attempt < 20 && !reading.allMatch(); attempt++) {
      Thread.sleep(250);
      reading = read(Scrape.of(url), expected);
    }
    return reading;
  }

  static Reading read(Scrape scrape, List<Expected> expected) {
    List<Count> counts = new ArrayList<>();
    for (Expected e : expected) {
      boolean present = scrape.series().keySet().stream().anyMatch(series -> series.equals(e.metric()) || series.startsWith(e.metric() + "{"));
      counts.add(new Count(e.series(), scrape.sum(e.metric(), e.labels()), e.value(), present));
    }
    return new Reading(scrape, counts);
  }
}
