package dev.resyncmeter.examples.demo;

import dev.resyncmeter.report.ReportException;
import dev.resyncmeter.report.ResyncReport;
import dev.resyncmeter.report.Scrape;
import dev.resyncmeter.report.TableFormat;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;

/**
 * The demos' summaries: the report of {@code java -jar resync-meter-agent.jar report}, read from the
 * agent's own endpoint over HTTP ({@link AgentEndpoint}), each for the window since the one before
 * (the first since the demo began, or since the agent was attached); at the end, since the agent
 * started.
 */
final class DemoReport {

  private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss");

  private final AgentEndpoint endpoint;
  /** Whether a report found no agent serving in this JVM: the first after an attach says where it serves. */
  private boolean waiting;
  private Scrape previous;
  private long previousNanos;

  /** Scrapes once, quietly, for the first report's window; if that fails, the first report says why. */
  DemoReport(AgentEndpoint endpoint) {
    this.endpoint = endpoint;
    String url = endpoint.url();
    if (url != null) {
      try {
        previous = Scrape.parse(endpoint.fetch(url), url);
        previousNanos = System.nanoTime();
      } catch (ReportException e) {
        // without it, the first report covers the time since the agent started, and says so
      }
    }
  }

  /** The report of the window since the last one. */
  void print(String headline) {
    String now = stamp(LocalTime.now());
    String url = endpoint.url();
    if (url == null) {
      // no agent serves in this JVM (yet): another JVM's agent on the default port is not this one's
      System.out.println(now + " " + endpoint.whyNothingToRead());
      waiting = true;
      return;
    }
    if (waiting) {
      System.out.println("demo: the agent attached to this JVM serves " + url + ": the reports read it there");
      waiting = false;
    }
    try {
      Scrape scrape = Scrape.parse(endpoint.fetch(url), url);
      long nanos = System.nanoTime();
      ResyncReport report = ResyncReport.of(previous, scrape, previous == null ? null : (nanos - previousNanos) / 1e9);
      previous = scrape;
      previousNanos = nanos;
      System.out.print(now + " " + headline + "\n" + TableFormat.render(report, url));
    } catch (ReportException e) {
      String why = endpoint.whyNothingToRead();
      System.out.println(now + " " + (why != null ? why : e.getMessage()));
    }
  }

  /** The last report, of everything since the agent started. */
  void printFinal() {
    previous = null;
    print("demo: stopping; the whole run");
  }

  /** {@code [17:53:00]}: the seconds always, also when they are zero. */
  static String stamp(LocalTime time) {
    return "[" + CLOCK.format(time) + "]";
  }
}
