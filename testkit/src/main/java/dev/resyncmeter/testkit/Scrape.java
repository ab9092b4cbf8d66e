package dev.resyncmeter.testkit;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One GET of a Prometheus text endpoint (the agent's, or a peer agent's), its samples keyed by
 * {@code name{labels}} as printed. Each line is read by the report's own parser
 * ({@link dev.resyncmeter.report.Scrape#sample}).
 */
public record Scrape(int status, String contentType, String body, Map<String, Double> series) {

  private static final Pattern SERVING = Pattern.compile("serving http://([^/\\s]+):(\\d+)/metrics");

  /** Scrapes {@code url}; a line of a 200 answer that is no sample fails. */
  public static Scrape of(String url) throws IOException {
    return of(url, null);
  }

  /** Scrapes {@code url} with this {@code Accept} header (null: none of ours). */
  public static Scrape of(String url, String accept) throws IOException {
    Net.Response response = Net.get(url, accept, Net.SCRAPE_TIMEOUT);
    return new Scrape(response.status(), response.contentType(), response.body(), response.status() == 200 ? parse(response.body()) : Map.of());
  }

  /**
   * Scrapes until the endpoint answers 200, for at most {@code attempts} tries 250 ms apart. Any
   * endpoint, a peer agent's too: a line that is not a sample we read (a peer's) is left out.
   */
  public static Scrape awaitOk(String url, int attempts) throws InterruptedException {
    IOException last = null;
    for (int i = 0; i < attempts; i++) {
      try {
        Net.Response response = Net.get(url, null, Net.SCRAPE_TIMEOUT);
        if (response.status() == 200) {
          return new Scrape(200, response.contentType(), response.body(), parse(response.body(), false));
        }
      } catch (IOException e) {
        last = e;
      }
      Thread.sleep(250);
    }
    throw new IllegalStateException("no 200 from " + url + " after " + attempts + " tries" + (last == null ? "" : ": " + last));
  }

  /** The metrics URL in resync-meter's start line, if this stderr line is it; else null. */
  public static String resyncMeterUrl(String stderrLine) {
    Matcher matcher = SERVING.matcher(stderrLine);
    if (!matcher.find()) {
      return null;
    }
    String host = matcher.group(1).equals("0.0.0.0") ? "127.0.0.1" : matcher.group(1);
    return "http://" + host + ":" + matcher.group(2) + "/metrics";
  }

  /** The samples of a scrape body, by {@code name{labels}} as printed; a line that is no sample fails. */
  public static Map<String, Double> parse(String body) {
    return parse(body, true);
  }

  private static Map<String, Double> parse(String body, boolean strict) {
    Map<String, Double> series = new LinkedHashMap<>();
    String[] lines = body.split("\n");
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i];
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      dev.resyncmeter.report.Scrape.Sample sample = dev.resyncmeter.report.Scrape.sample(line);
      if (sample != null) {
        series.put(key(line, sample), sample.value());
      } else if (strict) {
        throw new IllegalArgumentException("line " + (i + 1) + " of the scrape is no sample: " + line);
      }
    }
    return series;
  }

  /** What the line prints before its value: the name, and its labels in braces if it has any. */
  private static String key(String line, dev.resyncmeter.report.Scrape.Sample sample) {
    return sample.labels().isEmpty() && line.charAt(sample.name().length()) != '{'
        ? sample.name()
        : line.substring(0, line.lastIndexOf('}') + 1);
  }

  /** The value of one series as printed ({@code name{labels}}), 0 when the scrape has none. */
  public double value(String series) {
    return this.series.getOrDefault(series, 0.0);
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
