package dev.resyncmeter.report;

import java.util.function.Predicate;
import java.util.stream.Collectors;

/** What the tests that write their scrapes out share: the line every scrape holds, and the report of one or two. */
final class Scrapes {

  /** The agent's info line, at the head of every scrape written out in a test. */
  static final String INFO = "resync_meter_info{client=\"client-java\",client_version=\"27.0.0\",version=\"0.1.0-SNAPSHOT\"} 1\n";

  private Scrapes() {}

  /** The report of {@code later}, over a window of 12 s since {@code earlier} when there is one; both get {@link #INFO}. */
  static ResyncReport report(String earlier, String later) {
    try {
      Scrape first = earlier == null ? null : Scrape.parse(INFO + earlier, "earlier.prom");
      return ResyncReport.of(first, Scrape.parse(INFO + later, "later.prom"), earlier == null ? null : 12.0);
    } catch (ReportException e) {
      throw new AssertionError(e);
    }
  }

  /** The lines of {@code scrape} that {@code keep} accepts: a scrape with some series left out. */
  static String linesWhere(String scrape, Predicate<String> keep) {
    return scrape.lines().filter(keep).map(line -> line + "\n").collect(Collectors.joining());
  }

  static ResyncReport.Controller controller(ResyncReport report, String name) {
    return report.controllers().stream().filter(c -> c.controller().equals(name)).findFirst().orElseThrow();
  }
}
