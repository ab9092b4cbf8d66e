package dev.resyncmeter.report;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.HttpURLConnection;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * {@code report [--url URL] [--window 30s] [--format table|json|markdown] [FILE [FILE]]}: scrapes the
 * endpoint twice a window apart, or reads one saved scrape (counts since the agent started) or two
 * (the window between them: {@code --window}, else the files' modification times), or with
 * {@code --prometheus URL} a fleet's counts over a range from Prometheus ({@link PrometheusOptions}),
 * and prints the report. Both servers are reached the same way ({@link AccessOptions}, {@link HttpAccess}):
 * TLS with a CA of the user's and a client certificate, basic auth with the password from a file, a
 * bearer token, headers.
 * Unusable input gives one line on stderr and exit code 1; a bad command line, code 2. With
 * {@code --fail-on CONDITION} (repeatable, see {@link Gate}) the report is printed as always, then
 * each handler or controller that fails a condition gets one line on stderr, and the exit code is 1.
 */
public final class ReportCommand {

  public static final String USAGE =
      "usage: java -jar resync-meter-agent.jar report [--url URL [ACCESS]] [--window 30s] [--format table|json|markdown] [FILE [FILE]]\n"
          + PrometheusOptions.USAGE + "\n"
          + "  without FILE: scrapes URL (default http://127.0.0.1:9464/metrics) twice, WINDOW apart\n"
          + "  one FILE: a saved scrape, counts since the agent started; two FILEs: the window between them\n"
          + "  (--window, else the files' modification times)\n"
          + "  --fail-on CONDITION (repeatable): after the report, exit 1 with a line for each handler or controller that fails it:\n"
          + "  enqueues-noops, own-write-loops, 'noop-share>PCT' or 'noop-waste>PCT' (quoted: the shell reads > as a redirection)\n"
          + AccessOptions.USAGE;

  static final String DEFAULT_URL = "http://127.0.0.1:9464/metrics";

  /** How long a scrape waits to connect, and then for the answer. */
  static final int TIMEOUT_SECONDS = 10;

  private ReportCommand() {}

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /** Runs the command; its exit code. */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    String url = null;
    Double window = null;
    String format = "table";
    List<Path> files = new ArrayList<>();
    Set<Gate.Condition> failOn = new LinkedHashSet<>();
    PrometheusOptions prometheus = new PrometheusOptions();
    AccessOptions access = new AccessOptions();
    prometheus.access = access;
    try {
      for (int i = 0; i < args.length; i++) {
        switch (args[i]) {
          case "--help", "-h" -> {
            out.println(USAGE);
            return 0;
          }
          case "--url" -> url = value(args, ++i, "--url");
          case "--window" -> window = window(value(args, ++i, "--window"));
          case "--format" -> {
            format = value(args, ++i, "--format");
            if (!format.equals("table") && !format.equals("json") && !format.equals("markdown")) {
              throw new UsageException("--format takes table, json or markdown, not '" + format + "'");
            }
          }
          case "--fail-on" -> failOn.add(Gate.condition(value(args, ++i, "--fail-on")));
          default -> {
            if (PrometheusOptions.NAMES.contains(args[i])) {
              i = prometheus.take(args, i);
              continue;
            }
            if (AccessOptions.NAMES.contains(args[i])) {
              i = access.take(args, i);
              continue;
            }
            if (AccessOptions.isPassword(args[i])) {
              throw AccessOptions.refusePassword();
            }
            if (args[i].startsWith("-")) {
              throw new UsageException("unknown option " + args[i]);
            }
            files.add(Path.of(args[i]));
          }
        }
      }
      prometheus.check(url != null || window != null || !files.isEmpty());
      access.check();
      if (access.firstGiven() != null && !files.isEmpty()) {
        throw new UsageException(access.firstGiven() + " is for reading an endpoint (--url) or --prometheus, not saved scrapes");
      }
      if (files.size() > 2) {
        throw new UsageException("at most two saved scrapes, not " + files.size());
      }
      if (url != null && !files.isEmpty()) {
        throw new UsageException("--url or saved scrapes, not both");
      }
      if (window != null && files.size() == 1) {
        // one saved scrape counts since the agent started: a window would be silently ignored
        throw new UsageException("--window needs two saved scrapes or an endpoint; one saved scrape counts since the agent started");
      }
    } catch (UsageException e) {
      err.println("resync-meter report: " + e.getMessage());
      err.println(USAGE);
      return 2;
    }
    try {
      if (prometheus.reading()) {
        FleetReport fleet = FleetCounts.read(prometheus, err);
        out.print(FleetFormat.render(fleet, format));
        return gate(fleet.groups(), failOn, out, err);
      }
      ResyncReport report;
      String source;
      if (files.isEmpty()) {
        source = url == null ? DEFAULT_URL : url;
        double seconds = window == null ? 30 : window;
        HttpAccess reach = HttpAccess.load(access);
        Scrape first = Scrape.parse(fetch(source, TIMEOUT_SECONDS, reach), source);
        long start = System.nanoTime();
        sleep(seconds);
        Scrape second = Scrape.parse(fetch(source, TIMEOUT_SECONDS, reach), source);
        report = ResyncReport.of(first, second, (System.nanoTime() - start) / 1e9);
      } else if (files.size() == 1) {
        source = files.get(0).toString();
        report = ResyncReport.of(null, Scrape.parse(read(files.get(0)), source), null);
      } else {
        source = files.get(0) + " .. " + files.get(1);
        Scrape first = Scrape.parse(read(files.get(0)), files.get(0).toString());
        Scrape second = Scrape.parse(read(files.get(1)), files.get(1).toString());
        report = ResyncReport.of(first, second, window == null ? windowOfFiles(files.get(0), files.get(1)) : window);
      }
      out.print(
          switch (format) {
            case "json" -> JsonFormat.render(report, source);
            case "markdown" -> MarkdownFormat.render(report, source);
            default -> TableFormat.render(report, source);
          });
      return gate(List.of(new FleetReport.Group(java.util.Map.of(), 0, 0, report)), failOn, out, err);
    } catch (ReportException e) {
      err.println("resync-meter report: " + e.getMessage());
      return 1;
    }
  }

  /**
   * The gate, after the whole report is out (both streams may go to one CI log): one line per
   * failure, in each group of the report (named by its labels when there are any); exit code 1 if any.
   */
  private static int gate(List<FleetReport.Group> groups, Set<Gate.Condition> failOn, PrintStream out, PrintStream err) {
    out.flush();
    boolean failed = false;
    for (FleetReport.Group group : groups) {
      String in = group.labels().isEmpty() ? "" : "in " + group.labels() + ": ";
      for (String line : Gate.failures(group.report(), failOn)) {
        err.println("resync-meter report: fail: " + in + line);
        failed = true;
      }
    }
    return failed ? 1 : 0;
  }

  /** {@code 30s}, {@code 2m}, {@code 500ms}, {@code 1h}, or plain seconds; more than zero. */
  static double window(String text) throws UsageException {
    String t = text.trim().toLowerCase(Locale.ROOT);
    double unit = 1;
    if (t.endsWith("ms")) {
      unit = 0.001;
      t = t.substring(0, t.length() - 2);
    } else if (t.endsWith("s")) {
      t = t.substring(0, t.length() - 1);
    } else if (t.endsWith("m")) {
      unit = 60;
      t = t.substring(0, t.length() - 1);
    } else if (t.endsWith("h")) {
      unit = 3600;
      t = t.substring(0, t.length() - 1);
    }
    double seconds;
    try {
      seconds = Double.parseDouble(t) * unit;
    } catch (NumberFormatException e) {
      throw new UsageException("--window takes a duration such as 30s, 2m or 500ms, not '" + text + "'");
    }
    if (!(seconds > 0) || Double.isInfinite(seconds)) {
      throw new UsageException("--window must be longer than zero, not '" + text + "'");
    }
    return seconds;
  }

  /** The scrape at {@code url} over plain HTTP, or HTTPS trusting the JDK's CAs, without credentials. */
  public static String fetch(String url) throws ReportException {
    return fetch(url, TIMEOUT_SECONDS);
  }

  /**
   * The scrape at {@code url} as {@code --ca-file}, {@code --user} and {@code --password-file} reach it:
   * trusting the CA in {@code caFile} (null: the JDK's), with basic auth when {@code user} is not null.
   */
  public static String fetch(String url, Path caFile, String user, Path passwordFile) throws ReportException {
    AccessOptions options = new AccessOptions();
    options.caFile = caFile;
    options.user = user;
    options.passwordFile = passwordFile;
    return fetch(url, TIMEOUT_SECONDS, HttpAccess.load(options));
  }

  static String fetch(String url, int timeoutSeconds) throws ReportException {
    return fetch(url, timeoutSeconds, HttpAccess.none());
  }

  /**
   * The scrape at {@code url}, reached with {@code access}'s TLS and credentials, or the reason there is
   * none; an endpoint that says nothing for {@code timeoutSeconds} has none.
   */
  static String fetch(String url, int timeoutSeconds, HttpAccess access) throws ReportException {
    URI uri = HttpUrl.of(url, DEFAULT_URL);
    try {
      HttpURLConnection connection = access.open(uri, timeoutSeconds * 1000);
      try {
        int status = connection.getResponseCode();
        String refusal = access.refusal(connection, status, url, "the endpoint");
        if (refusal != null) {
          throw new ReportException(refusal);
        }
        if (status == -1) {
          throw new ReportException("cannot read " + url + ": the answer is not HTTP" + HttpAccess.notHttpHint(uri));
        }
        if (status != 200) {
          String reason = connection.getResponseMessage();
          throw new ReportException(OtherAnswer.of(url, status, reason, connection));
        }
        try (InputStream in = connection.getInputStream()) {
          return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
      } finally {
        connection.disconnect();
      }
    } catch (SocketTimeoutException e) {
      throw new ReportException("cannot read " + url + ": no answer within " + timeoutSeconds + " s" + HttpAccess.plainHttpHint(uri));
    } catch (IOException e) {
      throw new ReportException("cannot read " + url + access.failure(uri, e));
    }
  }

  private static String read(Path file) throws ReportException {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new ReportException("cannot read " + file + ": " + Problems.inWords(e));
    }
  }

  private static double windowOfFiles(Path first, Path second) throws ReportException {
    try {
      double seconds = (Files.getLastModifiedTime(second).toMillis() - Files.getLastModifiedTime(first).toMillis()) / 1000.0;
      if (seconds <= 0) {
        throw new ReportException(second + " is not newer than " + first + ": give the time between them with --window");
      }
      return seconds;
    } catch (IOException e) {
      throw new ReportException("cannot read the modification times of " + first + " and " + second + ": " + Problems.inWords(e));
    }
  }

  private static void sleep(double seconds) throws ReportException {
    try {
      Thread.sleep(Math.round(seconds * 1000));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ReportException("interrupted during the window");
    }
  }

  private static String value(String[] args, int i, String option) throws UsageException {
    if (i >= args.length) {
      throw new UsageException(option + " needs a value");
    }
    return args[i];
  }
}
