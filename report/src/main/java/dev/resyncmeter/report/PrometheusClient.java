package dev.resyncmeter.report;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.HttpURLConnection;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Timer;
import java.util.TimerTask;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * A client of a server speaking the Prometheus HTTP query API (Prometheus, Thanos, Mimir,
 * VictoriaMetrics): reads every raw sample of the named series over a range, in smaller pieces when
 * the server refuses the range for its size, with the options' credentials and CA, and says what
 * went wrong in one line. What the samples count is {@link FleetCounts}'s business.
 */
final class PrometheusClient {

  /** A range is split no further than this when the server refuses it for its size. */
  static final long SMALLEST_PIECE_MILLIS = 60_000;

  /** How a server says a query would read too much: Prometheus, Thanos, Mimir, VictoriaMetrics. */
  private static final Pattern TOO_MUCH =
      Pattern.compile("(?i).*(too many samples|maximum number of (samples|chunks|series)|max(imum)?[_ ]?(samples|chunks|series)|maxSamplesPerQuery|exceeded.*(samples|chunks)).*", Pattern.DOTALL);

  private final PrometheusOptions options;
  private final PrintStream err;
  private final String api;
  private final HttpAccess access;
  private volatile String doing = "";

  /** Checks the URL and reads the files of the access options (CA, client certificate, password, token); {@code err} hears of a slow read. */
  PrometheusClient(PrometheusOptions options, PrintStream err) throws ReportException {
    this.options = options;
    this.err = err;
    this.api = apiUrl(options.url);
    this.access = HttpAccess.load(options.access);
  }

  /**
   * Every raw sample in {@code (start, end]} of the series named in {@code names} that the options'
   * selector matches, by series (its labels, the name under {@code __name__}); every few seconds
   * {@code err} hears what is being read.
   */
  Map<Map<String, String>, TreeMap<Long, Double>> samples(Collection<String> names, long start, long end) throws ReportException {
    Map<Map<String, String>, TreeMap<Long, Double>> series = new HashMap<>();
    long began = System.nanoTime();
    Timer progress = new Timer("resync-meter-report-progress", true);
    progress.schedule(
        new TimerTask() {
          @Override
          public void run() {
            err.printf(Locale.ROOT, "resync-meter report: %s (%d s)%n", doing, Math.round((System.nanoTime() - began) / 1e9));
          }
        },
        2_000,
        5_000);
    int pieces;
    try {
      pieces = readPieces(String.join("|", names), start, end, series, 1);
    } finally {
      progress.cancel();
    }
    if (pieces > 1) {
      err.println("resync-meter report: " + options.url + " refused " + options.rangeText + " in one query (too many samples): read it in " + pieces + " pieces");
    }
    return series;
  }

  /** Reads {@code (start, end]} in one query, or in halves when the server refuses it for its size; the number of pieces. */
  private int readPieces(String names, long start, long end, Map<Map<String, String>, TreeMap<Long, Double>> into, int piece) throws ReportException {
    doing = "reading " + Instant.ofEpochMilli(start) + " to " + Instant.ofEpochMilli(end) + " from " + options.url + (piece > 1 ? ", piece " + piece : "");
    try {
      for (Map.Entry<Map<String, String>, TreeMap<Long, Double>> e : query(names, start, end).entrySet()) {
        // Prometheus before 3.0 includes a sample at the left edge in both neighbouring pieces: keyed by time, it counts once
        into.computeIfAbsent(e.getKey(), k -> new TreeMap<>()).putAll(e.getValue());
      }
      return 1;
    } catch (TooMuch refused) {
      if (end - start <= SMALLEST_PIECE_MILLIS) {
        throw new ReportException(
            options.url + " refuses even " + (end - start) / 1000 + " s of the selected series (" + refused.getMessage()
                + "): pick fewer with --selector");
      }
      long middle = start + (end - start) / 2;
      int first = readPieces(names, start, middle, into, piece);
      return first + readPieces(names, middle, end, into, piece + first);
    }
  }

  /** The server refused a query for the samples it would read. */
  private static final class TooMuch extends Exception {
    TooMuch(String message) {
      super(message);
    }
  }

  /** One instant query of a range-vector selector: every raw sample in {@code (start, end]} of the series {@code names} (an alternation), by series. */
  private Map<Map<String, String>, TreeMap<Long, Double>> query(String names, long start, long end) throws ReportException, TooMuch {
    String promql = "{__name__=~\"" + names + "\"" + (options.matchers.isEmpty() ? "" : "," + options.matchers) + "}[" + (end - start) + "ms]";
    String url = api + "?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8) + "&time=" + String.format(Locale.ROOT, "%d.%03d", end / 1000, end % 1000);
    Map<String, Object> answer = answer(url);
    Object data = answer.get("data");
    if (!(data instanceof Map<?, ?> d) || !"matrix".equals(d.get("resultType")) || !(d.get("result") instanceof List<?> result)) {
      throw notPrometheus("its answer holds no matrix of samples");
    }
    Map<Map<String, String>, TreeMap<Long, Double>> series = new HashMap<>();
    for (Object item : result) {
      if (!(item instanceof Map<?, ?> s) || !(s.get("metric") instanceof Map<?, ?> metric) || !(s.get("values") instanceof List<?> values)) {
        throw notPrometheus("a series in its answer has no metric or values");
      }
      Map<String, String> labels = new TreeMap<>();
      metric.forEach((k, v) -> labels.put(String.valueOf(k), String.valueOf(v)));
      TreeMap<Long, Double> samples = new TreeMap<>();
      for (Object value : values) {
        if (!(value instanceof List<?> pair) || pair.size() != 2 || !(pair.get(0) instanceof Double time) || !(pair.get(1) instanceof String number)) {
          throw notPrometheus("a sample in its answer is not [time, \"value\"]");
        }
        try {
          samples.put(Math.round(time * 1000), Double.parseDouble(number));
        } catch (NumberFormatException e) {
          throw notPrometheus("a sample's value is no number");
        }
      }
      series.put(labels, samples);
    }
    return series;
  }

  /** The answer's JSON when its status is success; the server's own words otherwise. */
  private Map<String, Object> answer(String url) throws ReportException, TooMuch {
    HttpURLConnection connection;
    try {
      connection = access.open(URI.create(url), (int) Math.min(Integer.MAX_VALUE, options.timeoutMillis));
    } catch (IOException | IllegalArgumentException e) {
      throw new ReportException("'" + options.url + "' is not a URL");
    }
    connection.setRequestProperty("Accept", "application/json");
    int status;
    String body;
    try {
      status = connection.getResponseCode();
      if (status == -1) {
        throw notPrometheus("its answer is not HTTP" + HttpAccess.notHttpHint(URI.create(options.url)));
      }
      String refusal = access.refusal(connection, status, options.url, "the server");
      if (refusal != null) {
        throw new ReportException(refusal);
      }
      try (InputStream in = status < 400 ? connection.getInputStream() : connection.getErrorStream()) {
        body = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
    } catch (SocketTimeoutException e) {
      throw new ReportException("no answer from " + options.url + " within " + seconds(options.timeoutMillis) + " (--timeout)" + HttpAccess.plainHttpHint(URI.create(options.url)));
    } catch (IOException e) {
      throw new ReportException("cannot reach " + options.url + access.failure(URI.create(options.url), e));
    } finally {
      connection.disconnect();
    }
    Object json;
    try {
      json = Json.parse(body);
    } catch (Json.NotJson e) {
      throw notPrometheus("HTTP " + status + " with " + (body.isBlank() ? "no body" : "no JSON (" + clip(body) + ")"));
    }
    if (!(json instanceof Map<?, ?> map) || !(map.get("status") instanceof String state)) {
      throw notPrometheus("HTTP " + status + " with JSON that has no status");
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> answer = (Map<String, Object>) map;
    if (state.equals("success") && status == 200) {
      return answer;
    }
    String error = oneLine(String.valueOf(answer.getOrDefault("error", "no error text")));
    String type = String.valueOf(answer.getOrDefault("errorType", ""));
    if (!type.equals("bad_data") && TOO_MUCH.matcher(error).matches()) {
      throw new TooMuch(error);
    }
    if (type.equals("bad_data")) {
      throw new ReportException(options.url + " rejected " + options.selectorAsGiven.rejected(Selector.queryOf(url), error));
    }
    throw new ReportException(options.url + " failed the query (HTTP " + status + (type.isEmpty() ? "" : ", " + type) + "): " + error);
  }

  private ReportException notPrometheus(String why) {
    return new ReportException(options.url + " does not answer as the Prometheus query API (" + api + "): " + why);
  }

  // ---- reaching the server ------------------------------------------------------------------------

  /** The query endpoint under {@code url} (which may carry a path prefix, as Mimir's {@code /prometheus}). */
  private static String apiUrl(String url) throws ReportException {
    HttpUrl.base(url, "http://prometheus:9090");
    String base = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    return base + "/api/v1/query";
  }

  private static String seconds(long millis) {
    return millis % 1000 == 0 ? millis / 1000 + " s" : millis + " ms";
  }

  private static String oneLine(String text) {
    return text.replaceAll("\\s*\\n\\s*", " ").strip();
  }

  private static String clip(String text) {
    String line = oneLine(text);
    return "it starts: " + (line.length() > 60 ? line.substring(0, 60) + "..." : line);
  }
}
