package dev.resyncmeter.examples.demo;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The demo's periodic summary, read from the agent's own endpoint over HTTP: what a user would see
 * in Prometheus, condensed to a few lines.
 */
final class MetricsSummary {

  private static final Pattern SERIES = Pattern.compile("^([a-z_]+)\\{([^}]*)} (\\S+)$");
  private static final Pattern LABEL = Pattern.compile("([a-z_]+)=\"((?:[^\"\\\\]|\\\\.)*)\"");

  private MetricsSummary() {}

  static String fetch(String url) throws IOException {
    HttpURLConnection connection = (HttpURLConnection) URI.create(url).toURL().openConnection();
    connection.setConnectTimeout(2_000);
    connection.setReadTimeout(5_000);
    try (InputStream in = connection.getInputStream()) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } finally {
      connection.disconnect();
    }
  }

  /** A few lines: updates by cause, then per handler its no-ops and what it did with them. */
  static String render(String scrape) {
    Map<String, Double> byCause = new TreeMap<>();
    Map<String, double[]> byHandler = new TreeMap<>(); // noops, enqueued, dropped, unknown
    Map<String, Map<String, double[]>> cost = new TreeMap<>(); // controller -> trigger -> reconciles, seconds
    double resyncs = 0;
    double relists = 0;
    double lost = 0;
    for (String line : scrape.split("\n")) {
      Matcher m = SERIES.matcher(line);
      if (!m.matches()) {
        continue;
      }
      Map<String, String> labels = labels(m.group(2));
      double value = Double.parseDouble(m.group(3));
      switch (m.group(1)) {
        case "informer_updates_total" -> byCause.merge(labels.get("cause"), value, Double::sum);
        case "informer_noop_updates_total" -> {
          double[] h = byHandler.computeIfAbsent(labels.get("handler"), k -> new double[4]);
          h[0] += value;
          if ("enqueued".equals(labels.get("outcome"))) {
            h[1] += value;
          } else if ("dropped".equals(labels.get("outcome"))) {
            h[2] += value;
          } else {
            h[3] += value;
          }
        }
        case "controller_reconcile_total" ->
            cost.computeIfAbsent(labels.get("controller"), k -> new TreeMap<>()).computeIfAbsent(labels.get("trigger"), k -> new double[2])[0] += value;
        case "controller_reconcile_duration_seconds_sum" ->
            cost.computeIfAbsent(labels.get("controller"), k -> new TreeMap<>()).computeIfAbsent(labels.get("trigger"), k -> new double[2])[1] += value;
        case "informer_resyncs_total" -> resyncs += value;
        case "informer_relists_total" -> relists += value;
        case "informer_relist_notifications_lost_total" -> lost += value;
        default -> {}
      }
    }
    double updates = byCause.values().stream().mapToDouble(Double::doubleValue).sum();
    StringBuilder out = new StringBuilder();
    out.append(String.format("updates %.0f (", updates));
    byCause.forEach((cause, n) -> out.append(String.format("%s %.0f, ", cause, n)));
    if (!byCause.isEmpty()) {
      out.setLength(out.length() - 2);
    }
    out.append(String.format("); resync ticks %.0f, relists %.0f, relist notifications lost %.0f%n", resyncs, relists, lost));
    byHandler.forEach(
        (handler, h) ->
            out.append(
                h[3] == 0
                    ? String.format("  %-30s no-op updates %5.0f   enqueued %5.0f   dropped %5.0f%n", handler, h[0], h[1], h[2])
                    : String.format("  %-38s no-op updates %5.0f   outcome unknown (no queue the agent sees) %5.0f%n", handler, h[0], h[3])));
    cost.forEach(
        (controller, byTrigger) -> {
          double seconds = byTrigger.values().stream().mapToDouble(c -> c[1]).sum();
          double noopSeconds = 0;
          double noopReconciles = 0;
          double[] periodic = byTrigger.getOrDefault("periodic", new double[2]);
          StringBuilder triggers = new StringBuilder();
          for (Map.Entry<String, double[]> e : byTrigger.entrySet()) {
            triggers.append(String.format("%s %.0f (%.2f s), ", e.getKey(), e.getValue()[0], e.getValue()[1]));
            if (e.getKey().endsWith("_noop")) {
              noopReconciles += e.getValue()[0];
              noopSeconds += e.getValue()[1];
            }
          }
          triggers.setLength(Math.max(0, triggers.length() - 2));
          out.append(
              String.format(
                  "  %-30s resync cost: %.0f reconciles, %.2f s = %.0f%% of reconcile time; ",
                  controller, noopReconciles, noopSeconds, seconds == 0 ? 0 : 100 * noopSeconds / seconds));
          if (periodic[0] > 0) {
            // a framework's timer (JOSDK's maxReconciliationInterval): beside the resync cost, never in it
            out.append(
                String.format(
                    "periodic: %.0f reconciles, %.2f s = %.0f%%; ", periodic[0], periodic[1], seconds == 0 ? 0 : 100 * periodic[1] / seconds));
          }
          out.append(String.format("by trigger: %s%n", triggers));
        });
    return out.toString();
  }

  private static Map<String, String> labels(String text) {
    Map<String, String> labels = new TreeMap<>();
    Matcher m = LABEL.matcher(text);
    while (m.find()) {
      labels.put(m.group(1), m.group(2));
    }
    return labels;
  }
}
