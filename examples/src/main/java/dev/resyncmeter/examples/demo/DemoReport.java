package dev.resyncmeter.examples.demo;

import dev.resyncmeter.report.ReportCommand;
import dev.resyncmeter.report.ReportException;
import dev.resyncmeter.report.ResyncReport;
import dev.resyncmeter.report.Scrape;
import dev.resyncmeter.report.TableFormat;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;

/**
 * The demos' summaries: the report of {@code java -jar resync-meter-agent.jar report}, read from the
 * agent's own endpoint over HTTP, for the window since the last summary; at the end, since the start.
 */
final class DemoReport {

  private final String metricsUrl;
  private Scrape previous;
  private long previousNanos;

  DemoReport(String metricsUrl) {
    this.metricsUrl = metricsUrl;
  }

  /** The report of the window since the last one (since the start, the first time). */
  void print(String headline) {
    String now = LocalTime.now().truncatedTo(ChronoUnit.SECONDS).toString();
    try {
      Scrape scrape = Scrape.parse(ReportCommand.fetch(metricsUrl), metricsUrl);
      long nanos = System.nanoTime();
      ResyncReport report = ResyncReport.of(previous, scrape, previous == null ? null : (nanos - previousNanos) / 1e9);
      previous = scrape;
      previousNanos = nanos;
      System.out.print("[" + now + "] " + headline + "\n" + TableFormat.render(report, metricsUrl));
    } catch (ReportException e) {
      System.out.println("[" + now + "] " + e.getMessage() + ": is the agent attached (-javaagent) on that port?");
    }
  }

  /** The last report, of everything since the agent started. */
  void printFinal() {
    previous = null;
    print("demo: stopping; the whole run");
  }
}
