package dev.resyncmeter.report;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The options of {@code report --prometheus URL}, parsed apart from the command's others so that
 * {@link ReportCommand} only hands them over: what to read (range, end, selector, grouping) and how long
 * to wait; how to reach the server (CA, credentials) is the {@link AccessOptions} it shares with {@code --url}.
 */
final class PrometheusOptions {

  static final Set<String> NAMES = Set.of("--prometheus", "--range", "--end", "--selector", "--by", "--timeout");

  static final String USAGE =
      "       java -jar resync-meter-agent.jar report --prometheus URL [--range 1h] [--end RFC3339] [--selector '{LABEL=\"VALUE\"}']\n"
          + "         [--by LABEL[,LABEL]] [--timeout 60s] [ACCESS]\n"
          + "  --prometheus: the counts over RANGE ending at END (default now) from a server speaking the Prometheus\n"
          + "  query API, replicas of a controller (same controller and job) summed; --by splits by a target label";

  private static final Pattern LABEL = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");
  private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h|d|w)");

  String url;
  long rangeMillis = 3_600_000;
  String rangeText = "1h";
  Instant end;
  /** The label matchers inside the selector's braces; empty for every series. */
  String matchers = "";
  String selector = "";
  /** The selector as given, to show the user where a server finds it wrong. */
  Selector selectorAsGiven = Selector.NONE;
  List<String> by = List.of();
  /** How to reach the server: the command's, shared with {@code --url}. */
  AccessOptions access = new AccessOptions();
  long timeoutMillis = 60_000;
  private final GivenOptions given = new GivenOptions();

  /** Takes the option at {@code args[i]} and its value; the index of the value. */
  int take(String[] args, int i) throws UsageException {
    String option = args[i];
    String value = given.value(args, i);
    switch (option) {
      case "--prometheus" -> url = value;
      case "--range" -> {
        rangeMillis = duration(value, "--range");
        rangeText = value;
      }
      case "--end" -> end = instant(value);
      case "--selector" -> selector(value);
      case "--by" -> by(value);
      case "--timeout" -> timeoutMillis = duration(value, "--timeout");
      default -> throw new IllegalArgumentException(option);
    }
    return i + 1;
  }

  boolean reading() {
    return url != null;
  }

  /** The options make sense together with the command's others. */
  void check(boolean endpointOrFiles) throws UsageException {
    if (url == null && given.first() != null) {
      throw new UsageException(given.first() + " needs --prometheus URL");
    }
    if (url != null && endpointOrFiles) {
      throw new UsageException("--prometheus reads a server: not with --url, --window or saved scrapes");
    }
  }

  /** Prometheus's durations: {@code 30s}, {@code 30m}, {@code 7d}, {@code 1h30m}, {@code 500ms}; more than zero. */
  static long duration(String text, String option) throws UsageException {
    String t = text.trim().toLowerCase(Locale.ROOT);
    Matcher m = DURATION.matcher(t);
    long millis = 0;
    int at = 0;
    while (m.find() && m.start() == at) {
      long n;
      try {
        n = Long.parseLong(m.group(1));
      } catch (NumberFormatException e) {
        throw new UsageException(option + " is too long: '" + text + "'");
      }
      long unit = switch (m.group(2)) {
        case "ms" -> 1;
        case "s" -> 1_000;
        case "m" -> 60_000;
        case "h" -> 3_600_000;
        case "d" -> 86_400_000;
        default -> 7 * 86_400_000L;
      };
      if (n > Long.MAX_VALUE / unit / 2) {
        throw new UsageException(option + " is too long: '" + text + "'");
      }
      millis += n * unit;
      at = m.end();
    }
    if (at == 0 || at != t.length()) {
      throw new UsageException(option + " takes a duration such as 30m, 1h, 7d or 1h30m, not '" + text + "'");
    }
    if (millis <= 0) {
      throw new UsageException(option + " must be longer than zero, not '" + text + "'");
    }
    return millis;
  }

  private static Instant instant(String text) throws UsageException {
    try {
      return OffsetDateTime.parse(text.trim()).toInstant();
    } catch (DateTimeParseException e) {
      throw new UsageException("--end takes an RFC 3339 time such as 2025-06-01T12:00:00Z, not '" + text + "'");
    }
  }

  /**
   * {@code {a="x",b=~"y.*"}} or the same without braces, its syntax checked here ({@link Selector}):
   * a mistake is shown in the user's selector, not in the query built around it.
   */
  private void selector(String text) throws UsageException {
    selectorAsGiven = Selector.parse(text);
    matchers = selectorAsGiven.matchers;
    selector = matchers.isEmpty() ? "" : "{" + matchers + "}";
  }

  private void by(String text) throws UsageException {
    List<String> labels = new ArrayList<>();
    for (String label : text.split(",", -1)) {
      if (!LABEL.matcher(label.trim()).matches() || label.trim().startsWith("__")) {
        throw new UsageException("--by takes label names such as cluster or cluster,namespace, not '" + text + "'");
      }
      labels.add(label.trim());
    }
    by = List.copyOf(labels);
  }
}
