package dev.resyncmeter.report;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.HttpURLConnection;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.Timer;
import java.util.TimerTask;
import java.util.TreeMap;
import java.util.regex.Pattern;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * Reads the series of resync-meter agents from a server speaking the Prometheus HTTP query API, and
 * makes of them the report the endpoint gives, pods summed.
 *
 * <p>Exact counts: {@code increase()} extrapolates to the range's edges, so it is not used. The raw
 * samples come from a range-vector selector in an instant query, and each series' increase is
 * computed here: within one run of the agent a counter's increase is its last value less its first;
 * a counter lower than before, or a new {@code resync_meter_start_time_seconds}, is a restart whose
 * later values count from zero; a series of a pod that started inside the range, or that appears
 * after its pod's first sample, counts from zero too. Only a pod that started before the range has
 * its first sample in it taken as the baseline: what it counted before that sample is not known.
 */
final class PrometheusSource {

  static final String START_TIME = "resync_meter_start_time_seconds";

  /** The series the report reads: its counters, the one gauge it shows, and the pods' start times. */
  static final List<String> COUNTERS =
      List.of(
          "informer_notifications_total", "informer_updates_total", "informer_noop_updates_total", "informer_resyncs_total", "informer_relists_total",
          "informer_relist_notifications_lost_total", "controller_reconcile_total", "controller_reconcile_duration_seconds_sum",
          "controller_reconcile_api_requests_total", "controller_reconcile_effect_total");

  static final String RESYNC_PERIOD = "informer_resync_period_seconds";

  /**
   * The labels the agent itself puts on those series (docs/metrics.md): what is left of a series'
   * labels without them (and the name) is its scrape target, the pod.
   */
  static final Set<String> AGENT_LABELS =
      Set.of("kind", "handler", "type", "cause", "resource_version", "outcome", "reason", "controller", "trigger", "result", "verb", "effect", "version", "client", "client_version");

  /** A range is split no further than this when the server refuses it for its size. */
  static final long SMALLEST_PIECE_MILLIS = 60_000;

  /** How a server says a query would read too much: Prometheus, Thanos, Mimir, VictoriaMetrics. */
  private static final Pattern TOO_MUCH =
      Pattern.compile("(?i).*(too many samples|maximum number of (samples|chunks|series)|max(imum)?[_ ]?(samples|chunks|series)|maxSamplesPerQuery|exceeded.*(samples|chunks)).*", Pattern.DOTALL);

  private final PrometheusOptions options;
  private final PrintStream err;
  private final String api;
  private final String token;
  private final SSLSocketFactory tls;
  private volatile String doing = "";

  private PrometheusSource(PrometheusOptions options, PrintStream err) throws ReportException {
    this.options = options;
    this.err = err;
    this.api = apiUrl(options.url);
    this.token = options.bearerTokenFile == null ? null : token(options.bearerTokenFile);
    this.tls = options.caFile == null ? null : tls(options.caFile);
  }

  /** The report of what {@code options} select. */
  static FleetReport read(PrometheusOptions options, PrintStream err) throws ReportException {
    return new PrometheusSource(options, err).read();
  }

  private FleetReport read() throws ReportException {
    Instant end = options.end == null ? Instant.ofEpochMilli(System.currentTimeMillis()) : options.end;
    long endMillis = end.toEpochMilli();
    long startMillis = endMillis - options.rangeMillis;
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
      pieces = readPieces(startMillis, endMillis, series, 1);
    } finally {
      progress.cancel();
    }
    if (pieces > 1) {
      err.println("resync-meter report: " + options.url + " refused " + options.rangeText + " in one query (too many samples): read it in " + pieces + " pieces");
    }
    if (series.isEmpty()) {
      throw new ReportException(
          options.url + " holds no resync-meter series" + (options.selector.isEmpty() ? "" : " matching " + options.selector) + " from "
              + Instant.ofEpochMilli(startMillis) + " to " + end + " (is the agent's endpoint scraped?)");
    }
    return fleet(series, options, end);
  }

  /** Reads {@code (start, end]} in one query, or in halves when the server refuses it for its size; the number of pieces. */
  private int readPieces(long start, long end, Map<Map<String, String>, TreeMap<Long, Double>> into, int piece) throws ReportException {
    doing = "reading " + Instant.ofEpochMilli(start) + " to " + Instant.ofEpochMilli(end) + " from " + options.url + (piece > 1 ? ", piece " + piece : "");
    try {
      for (Map.Entry<Map<String, String>, TreeMap<Long, Double>> e : query(start, end).entrySet()) {
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
      int first = readPieces(start, middle, into, piece);
      return first + readPieces(middle, end, into, piece + first);
    }
  }

  /** The server refused a query for the samples it would read. */
  private static final class TooMuch extends Exception {
    TooMuch(String message) {
      super(message);
    }
  }

  /** One instant query of a range-vector selector: every raw sample in {@code (start, end]}, by series. */
  private Map<Map<String, String>, TreeMap<Long, Double>> query(long start, long end) throws ReportException, TooMuch {
    String names = String.join("|", COUNTERS) + "|" + RESYNC_PERIOD + "|" + START_TIME;
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
      connection = (HttpURLConnection) URI.create(url).toURL().openConnection();
    } catch (IOException | IllegalArgumentException e) {
      throw new ReportException("'" + options.url + "' is not a URL");
    }
    int timeout = (int) Math.min(Integer.MAX_VALUE, options.timeoutMillis);
    connection.setConnectTimeout(timeout);
    connection.setReadTimeout(timeout);
    connection.setRequestProperty("Accept", "application/json");
    if (token != null) {
      connection.setRequestProperty("Authorization", "Bearer " + token);
    }
    for (String[] header : options.headers) {
      connection.setRequestProperty(header[0], header[1]);
    }
    if (tls != null && connection instanceof HttpsURLConnection https) {
      https.setSSLSocketFactory(tls);
    }
    int status;
    String body;
    try {
      status = connection.getResponseCode();
      if (status == -1) {
        throw notPrometheus("its answer is not HTTP");
      }
      try (InputStream in = status < 400 ? connection.getInputStream() : connection.getErrorStream()) {
        body = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
    } catch (SocketTimeoutException e) {
      throw new ReportException("no answer from " + options.url + " within " + seconds(options.timeoutMillis) + " (--timeout)");
    } catch (SSLException e) {
      throw new ReportException("cannot reach " + options.url + " over TLS: " + tlsProblem(e));
    } catch (IOException e) {
      throw new ReportException("cannot reach " + options.url + ": " + Problems.inWords(e));
    } finally {
      connection.disconnect();
    }
    if (status == 401 || status == 403) {
      throw new ReportException(
          options.url + " answered HTTP " + status + (status == 401 ? " Unauthorized" : " Forbidden") + ": "
              + (token == null && options.headers.isEmpty() ? "it needs credentials (--bearer-token-file, --header)" : "the credentials given are refused"));
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
      throw new ReportException(options.url + " rejected the query" + (options.selector.isEmpty() ? "" : " of --selector " + options.selector) + ": " + error);
    }
    throw new ReportException(options.url + " failed the query (HTTP " + status + (type.isEmpty() ? "" : ", " + type) + "): " + error);
  }

  private ReportException notPrometheus(String why) {
    return new ReportException(options.url + " does not answer as the Prometheus query API (" + api + "): " + why);
  }

  // ---- the counts ---------------------------------------------------------------------------------

  /** A scrape target: what the labels of its series have in common, the agent's own labels and the name left out. */
  static Map<String, String> target(Map<String, String> labels) {
    Map<String, String> target = new TreeMap<>(labels);
    target.keySet().removeAll(AGENT_LABELS);
    target.remove("__name__");
    return target;
  }

  /** What each pod's series counted in the range, summed into one report per group. */
  static FleetReport fleet(Map<Map<String, String>, TreeMap<Long, Double>> series, PrometheusOptions options, Instant end) throws ReportException {
    long rangeStart = end.toEpochMilli() - options.rangeMillis;
    Map<Map<String, String>, TreeMap<Long, Double>> startTimes = new HashMap<>();
    Map<Map<String, String>, Long> firstSample = new HashMap<>();
    for (Map.Entry<Map<String, String>, TreeMap<Long, Double>> s : series.entrySet()) {
      Map<String, String> target = target(s.getKey());
      firstSample.merge(target, s.getValue().firstKey(), Math::min);
      if (START_TIME.equals(s.getKey().get("__name__"))) {
        startTimes.computeIfAbsent(target, k -> new TreeMap<>()).putAll(s.getValue());
      }
    }
    for (String label : options.by) {
      if (series.keySet().stream().noneMatch(labels -> labels.containsKey(label))) {
        throw new ReportException("--by " + label + ": no series read carries the label " + label);
      }
    }
    Map<Map<String, String>, List<Map<String, String>>> groups = new TreeMap<>(PrometheusSource::compare);
    for (Map<String, String> labels : series.keySet()) {
      Map<String, String> group = new LinkedHashMap<>();
      options.by.forEach(label -> group.put(label, labels.getOrDefault(label, "")));
      groups.computeIfAbsent(group, k -> new ArrayList<>()).add(labels);
    }
    List<FleetReport.Group> reports = new ArrayList<>();
    Set<Map<String, String>> allPods = new HashSet<>();
    Set<Map<String, String>> allFromFirstSample = new HashSet<>();
    for (Map.Entry<Map<String, String>, List<Map<String, String>>> group : groups.entrySet()) {
      Set<Map<String, String>> pods = new HashSet<>();
      Set<Map<String, String>> fromFirstSample = new HashSet<>();
      Set<String> clashing = namesInSeveralJobs(group.getValue());
      List<Scrape.Sample> samples = new ArrayList<>();
      for (Map<String, String> labels : group.getValue()) {
        Map<String, String> target = target(labels);
        pods.add(target);
        TreeMap<Long, Double> starts = startTimes.get(target);
        Double start = startAt(starts, firstSample.get(target));
        boolean startedInRange = start != null && start * 1000 >= rangeStart;
        if (!startedInRange) {
          fromFirstSample.add(target);
        }
        String name = labels.get("__name__");
        double value;
        if (COUNTERS.contains(name)) {
          value = increase(series.get(labels), starts, startedInRange, firstSample.get(target));
        } else if (RESYNC_PERIOD.equals(name)) {
          value = series.get(labels).lastEntry().getValue();
        } else {
          continue;
        }
        Map<String, String> reportLabels = new TreeMap<>(labels);
        reportLabels.remove("__name__");
        for (String named : List.of("controller", "handler")) {
          String n = reportLabels.get(named);
          if (n != null && clashing.contains(n)) {
            reportLabels.put(named, n + " (job " + labels.getOrDefault("job", "") + ")");
          }
        }
        samples.add(new Scrape.Sample(name, reportLabels, value));
      }
      allPods.addAll(pods);
      allFromFirstSample.addAll(fromFirstSample);
      reports.add(new FleetReport.Group(group.getKey(), pods.size(), fromFirstSample.size(), ResyncReport.of(null, new Scrape(samples), options.rangeMillis / 1000.0)));
    }
    return new FleetReport(options.url, options.selector, end, options.rangeMillis, options.by, allPods.size(), allFromFirstSample.size(), reports);
  }

  /**
   * A counter's increase from its raw samples: the sum over each run of the agent of its last value
   * less its base. The base is zero when the run began in the range (the pod started inside it, the
   * series appeared after the pod's first sample, or it follows a restart), else the first sample.
   * Each run is one subtraction, so a count that Prometheus holds exactly comes out exactly.
   */
  static double increase(TreeMap<Long, Double> samples, TreeMap<Long, Double> starts, boolean startedInRange, long podsFirstSample) {
    double increase = 0;
    double base = 0;
    Double previous = null;
    Double previousStart = null;
    for (Map.Entry<Long, Double> sample : samples.entrySet()) {
      double value = sample.getValue();
      Double start = startAt(starts, sample.getKey());
      if (previous == null) {
        boolean bornInRange = startedInRange || sample.getKey() > podsFirstSample;
        base = bornInRange ? 0 : value;
      } else if (value < previous || start != null && previousStart != null && !start.equals(previousStart)) {
        increase += previous - base;
        base = 0;
      }
      previous = value;
      previousStart = start;
    }
    return previous == null ? 0 : increase + previous - base;
  }

  /** The pod's start time as of {@code time}: its last start-time sample then, else its first one. */
  private static Double startAt(TreeMap<Long, Double> starts, Long time) {
    if (starts == null || starts.isEmpty() || time == null) {
      return null;
    }
    Map.Entry<Long, Double> at = starts.floorEntry(time);
    return at != null ? at.getValue() : starts.firstEntry().getValue();
  }

  /**
   * Controller and handler names that appear under more than one job: two programs that happen to
   * share a name are not replicas of one controller, so each keeps its job beside its name.
   */
  private static Set<String> namesInSeveralJobs(Collection<Map<String, String>> series) {
    Map<String, Set<String>> jobs = new HashMap<>();
    for (Map<String, String> labels : series) {
      for (String named : List.of("controller", "handler")) {
        if (labels.containsKey(named)) {
          jobs.computeIfAbsent(labels.get(named), k -> new HashSet<>()).add(labels.getOrDefault("job", ""));
        }
      }
    }
    Set<String> clashing = new HashSet<>();
    jobs.forEach((name, in) -> {
      if (in.size() > 1) {
        clashing.add(name);
      }
    });
    return clashing;
  }

  private static int compare(Map<String, String> a, Map<String, String> b) {
    return a.values().toString().compareTo(b.values().toString());
  }

  // ---- reaching the server ------------------------------------------------------------------------

  /** The query endpoint under {@code url} (which may carry a path prefix, as Mimir's {@code /prometheus}). */
  private static String apiUrl(String url) throws ReportException {
    URI uri;
    try {
      uri = URI.create(url);
    } catch (IllegalArgumentException e) {
      throw new ReportException("'" + url + "' is not a URL");
    }
    if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme()) || uri.getHost() == null) {
      throw new ReportException("'" + url + "' is not an http URL such as http://prometheus:9090");
    }
    if (uri.getPort() > 65535) {
      throw new ReportException("'" + url + "' is not a URL: its port is above 65535");
    }
    if (uri.getQuery() != null || uri.getFragment() != null) {
      throw new ReportException("'" + url + "' has a query or fragment: give the server's base URL, such as http://prometheus:9090");
    }
    String base = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    return base + "/api/v1/query";
  }

  private static String token(Path file) throws ReportException {
    String token;
    try {
      token = Files.readString(file, StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      throw new ReportException("cannot read --bearer-token-file " + file + ": " + Problems.inWords(e));
    }
    if (token.isEmpty() || token.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
      throw new ReportException("--bearer-token-file " + file + (token.isEmpty() ? " is empty" : " holds more than one line"));
    }
    return token;
  }

  /** Trusts the certificates in a PEM file (and only those): a server with its own CA. */
  private static SSLSocketFactory tls(Path caFile) throws ReportException {
    byte[] pem;
    try {
      pem = Files.readAllBytes(caFile);
    } catch (IOException e) {
      throw new ReportException("cannot read --ca-file " + caFile + ": " + Problems.inWords(e));
    }
    try {
      Collection<? extends Certificate> certificates = CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(pem));
      if (certificates.isEmpty()) {
        throw new ReportException("--ca-file " + caFile + " holds no PEM certificate");
      }
      KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
      trusted.load(null, null);
      int i = 0;
      for (Certificate certificate : certificates) {
        trusted.setCertificateEntry("ca-" + i++, certificate);
      }
      TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trust.init(trusted);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, trust.getTrustManagers(), null);
      return context.getSocketFactory();
    } catch (CertificateException e) {
      throw new ReportException("--ca-file " + caFile + " holds no PEM certificate");
    } catch (GeneralSecurityException | IOException e) {
      throw new ReportException("cannot use --ca-file " + caFile + ": " + oneLine(String.valueOf(e.getMessage())));
    }
  }

  private static String tlsProblem(SSLException e) {
    String message = String.valueOf(e.getMessage());
    if (message.contains("PKIX") || message.contains("certification path")) {
      return "its certificate is not signed by a trusted CA (give the CA with --ca-file)";
    }
    if (message.contains("No subject alternative") || message.contains("No name matching")) {
      return "its certificate is not for this host name";
    }
    return Problems.inWords(e);
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
