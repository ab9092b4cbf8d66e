package dev.resyncmeter.report;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A server on loopback answering {@code /api/v1/query} as Prometheus 2.x does for a range-vector
 * selector: every sample of its series in {@code [time - range, time]}, as a matrix. It does not
 * evaluate matchers (the tests that need an answer to a selector give one with {@link #answer});
 * it records each request's query and headers.
 */
final class FakePrometheus implements AutoCloseable, AfterEachCallback {

  /** What the server answers instead of the matrix: status and body. */
  record Answer(int status, String contentType, String body) {}

  /** One series: its labels (the name as {@code __name__}) and samples by Unix milliseconds. */
  record Series(Map<String, String> labels, TreeMap<Long, Double> samples) {}

  record Request(String query, long timeMillis, long rangeMillis, Map<String, List<String>> headers) {}

  static final Instant DAY = Instant.parse("2025-01-01T00:00:00Z");
  private static final Pattern RANGE = Pattern.compile("\\[(\\d+)ms\\]$");

  final List<Series> series = new ArrayList<>();
  final List<Request> requests = new CopyOnWriteArrayList<>();
  private final HttpServer server;
  /** Answers a request instead of the matrix when it returns one. */
  private volatile java.util.function.Function<Request, Answer> answer = r -> null;

  /** Serving from now on; a field {@code @RegisterExtension} closes it after each test. */
  FakePrometheus() {
    try {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.createContext("/", this::handle);
    server.start();
  }

  @Override
  public void afterEach(ExtensionContext context) {
    close();
  }

  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  void answer(java.util.function.Function<Request, Answer> answer) {
    this.answer = answer;
  }

  /** Prometheus's error JSON. */
  static Answer error(int status, String type, String error) {
    return new Answer(status, "application/json", "{\"status\":\"error\",\"errorType\":\"" + type + "\",\"error\":" + JsonFormat.string(error) + "}");
  }

  /** {@code 00:01:15} on the test's day, {@code -23:50:00} on the day before, in Unix milliseconds. */
  static long at(String time) {
    Instant day = time.startsWith("-") ? DAY.minusSeconds(86_400) : DAY;
    return day.plusSeconds(java.time.LocalTime.parse(time.replace("-", "")).toSecondOfDay()).toEpochMilli();
  }

  /** A series: {@code labels} as {@code a=x,b=y}, then times and values in turn; more samples of it when it is there. */
  Series add(String name, Map<String, String> target, String labels, Object... timesAndValues) {
    Map<String, String> all = new TreeMap<>(target);
    all.put("__name__", name);
    for (String pair : labels.isEmpty() ? new String[0] : labels.split(",")) {
      String[] kv = pair.split("=", 2);
      all.put(kv[0], kv[1]);
    }
    TreeMap<Long, Double> samples = new TreeMap<>();
    for (int i = 0; i < timesAndValues.length; i += 2) {
      samples.put(at((String) timesAndValues[i]), ((Number) timesAndValues[i + 1]).doubleValue());
    }
    for (Series existing : series) {
      if (existing.labels().equals(all)) {
        existing.samples().putAll(samples);
        return existing;
      }
    }
    Series s = new Series(all, samples);
    series.add(s);
    return s;
  }

  /** A pod's start time, sampled at each of {@code times} (its scrapes). */
  void started(Map<String, String> target, String start, String... times) {
    Object[] timesAndValues = new Object[times.length * 2];
    for (int i = 0; i < times.length; i++) {
      timesAndValues[2 * i] = times[i];
      timesAndValues[2 * i + 1] = at(start) / 1000.0;
    }
    add(FleetCounts.START_TIME, target, "", timesAndValues);
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      Map<String, String> params = new LinkedHashMap<>();
      String raw = exchange.getRequestURI().getRawQuery();
      for (String pair : raw == null ? new String[0] : raw.split("&")) {
        String[] kv = pair.split("=", 2);
        params.put(URLDecoder.decode(kv[0], StandardCharsets.UTF_8), kv.length < 2 ? "" : URLDecoder.decode(kv[1], StandardCharsets.UTF_8));
      }
      String query = params.getOrDefault("query", "");
      Matcher range = RANGE.matcher(query);
      long time = Math.round(Double.parseDouble(params.getOrDefault("time", "0")) * 1000);
      Request request = new Request(query, time, range.find() ? Long.parseLong(range.group(1)) : 0, Map.copyOf(exchange.getRequestHeaders()));
      requests.add(request);
      Answer instead = exchange.getRequestURI().getPath().equals("/api/v1/query") ? answer.apply(request) : new Answer(404, "text/plain", "404 page not found\n");
      Answer sent = instead != null ? instead : new Answer(200, "application/json", matrix(request));
      byte[] body = sent.body().getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", sent.contentType());
      exchange.sendResponseHeaders(sent.status(), body.length == 0 ? -1 : body.length);
      exchange.getResponseBody().write(body);
    }
  }

  private String matrix(Request request) {
    StringBuilder out = new StringBuilder("{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[");
    String separator = "";
    for (Series s : series) {
      Map<Long, Double> inRange = s.samples().subMap(request.timeMillis() - request.rangeMillis(), true, request.timeMillis(), true);
      if (inRange.isEmpty()) {
        continue;
      }
      out.append(separator).append("{\"metric\":{");
      String inner = "";
      for (Map.Entry<String, String> label : s.labels().entrySet()) {
        out.append(inner).append(JsonFormat.string(label.getKey())).append(':').append(JsonFormat.string(label.getValue()));
        inner = ",";
      }
      out.append("},\"values\":[");
      inner = "";
      for (Map.Entry<Long, Double> sample : inRange.entrySet()) {
        out.append(inner).append('[').append(sample.getKey() / 1000).append('.').append(String.format("%03d", sample.getKey() % 1000))
            .append(",\"").append(sample.getValue()).append("\"]");
        inner = ",";
      }
      out.append("]}");
      separator = ",";
    }
    return out.append("]}}").toString();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
