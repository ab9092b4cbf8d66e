package dev.resyncmeter.collector;

/** The endpoint's refusals as a scrape shows them. */
final class Refusals {

  private Refusals() {}

  /** {@code resync_meter_endpoint_refusals_total{reason}} in a scrape of {@code metrics}. */
  static double of(ResyncMetrics metrics, String reason) {
    String series = "resync_meter_endpoint_refusals_total{reason=\"" + reason + "\"} ";
    for (String line : metrics.scrape(null).body().split("\n")) {
      if (line.startsWith(series)) {
        return Double.parseDouble(line.substring(series.length()));
      }
    }
    throw new AssertionError("no " + series.trim() + " in the scrape");
  }
}
