package dev.resyncmeter.bench;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** One GET of a Prometheus text endpoint, parsed into {@code name{labels} -> value}. */
public record Scrape(int status, Map<String, Double> series) {

  private static final Pattern SERVING = Pattern.compile("serving http://([^/\\s]+):(\\d+)/metrics");

  public static Scrape of(String url) throws IOException {
    HttpURLConnection connection = (HttpURLConnection) URI.create(url).toURL().openConnection();
    connection.setConnectTimeout(5_000);
    connection.setReadTimeout(10_000);
    try {
      int status = connection.getResponseCode();
      InputStream in = status < 400 ? connection.getInputStream() : connection.getErrorStream();
      String body = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
      return new Scrape(status, status == 200 ? parse(body) : Map.of());
    } finally {
      connection.disconnect();
    }
  }

  /** Scrapes until the endpoint answers 200, for at most {@code attempts} tries 250 ms apart. */
  public static Scrape awaitOk(String url, int attempts) throws InterruptedException {
    IOException last = null;
    for (int i = 0; i < attempts; i++) {
      try {
        Scrape scrape = of(url);
        if (scrape.status == 200) {
          return scrape;
        }
      } catch (IOException e) {
        last = e;
      }
      Thread.sleep(250);
    }
    throw new IllegalStateException("no 200 from " + url + " after " + attempts + " tries" + (last == null ? "" : ": " + last));
  }

  /** The metrics URL in resync-meter's start line, if this stderr line is it. */
  public static String resyncMeterUrl(String stderrLine) {
    Matcher matcher = SERVING.matcher(stderrLine);
    if (!matcher.find()) {
      return null;
    }
    String host = matcher.group(1).equals("0.0.0.0") ? "127.0.0.1" : matcher.group(1);
    return "http://" + host + ":" + matcher.group(2) + "/metrics";
  }

  static Map<String, Double> parse(String body) {
    Map<String, Double> series = new LinkedHashMap<>();
    for (String line : body.split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      int split = line.lastIndexOf(' ');
      try {
        series.put(line.substring(0, split), Double.parseDouble(line.substring(split + 1)));
      } catch (NumberFormatException | StringIndexOutOfBoundsException ignored) {
        // a timestamped or exotic line of a peer's endpoint: not one we read
      }
    }
    return series;
  }

  /** The sum of every series of metric {@code name} whose labels contain all of {@code labels} ({@code key="value"}). */
  public double sum(String name, String... labels) {
    double total = 0;
    for (Map.Entry<String, Double> entry : series.entrySet()) {
      String key = entry.getKey();
      int brace = key.indexOf('{');
      if (!(brace < 0 ? key : key.substring(0, brace)).equals(name)) {
        continue;
      }
      boolean all = true;
      for (String label : labels) {
        all &= brace >= 0 && (key.contains("{" + label) || key.contains("," + label));
      }
      if (all) {
        total += entry.getValue();
      }
    }
    return total;
  }
}
