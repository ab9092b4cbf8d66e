package dev.resyncmeter.examples.e2e;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/** One scrape of the agent's endpoint over HTTP, parsed into series and values. */
record Scrape(int status, String contentType, String body, Map<String, Double> series) {

  static Scrape of(String url) throws IOException {
    return of(url, null);
  }

  static Scrape of(String url, String accept) throws IOException {
    HttpURLConnection connection = (HttpURLConnection) URI.create(url).toURL().openConnection();
    connection.setConnectTimeout(5_000);
    connection.setReadTimeout(10_000);
    if (accept != null) {
      connection.setRequestProperty("Accept", accept);
    }
    int status = connection.getResponseCode();
    InputStream in = status < 400 ? connection.getInputStream() : connection.getErrorStream();
    String body = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
    connection.disconnect();
    return new Scrape(status, connection.getContentType(), body, status == 200 ? parse(body) : Map.of());
  }

  /** {@code name{labels} value} lines, keyed by everything before the value as printed. */
  static Map<String, Double> parse(String body) {
    Map<String, Double> series = new LinkedHashMap<>();
    for (String line : body.split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      int split = line.lastIndexOf(' ');
      series.put(line.substring(0, split), Double.parseDouble(line.substring(split + 1)));
    }
    return series;
  }

  double value(String series) {
    return this.series.getOrDefault(series, 0.0);
  }
}
