package dev.resyncmeter.collector;

import java.util.Locale;

/** Chooses between the Prometheus text format and OpenMetrics by the scraper's Accept header. */
final class ScrapeFormat {

  static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";
  static final String OPENMETRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8";

  private ScrapeFormat() {}

  static String contentTypeFor(String acceptHeader) {
    if (acceptHeader != null
        && acceptHeader.toLowerCase(Locale.ROOT).contains("application/openmetrics-text")) {
      return OPENMETRICS;
    }
    return PROMETHEUS_TEXT;
  }
}
