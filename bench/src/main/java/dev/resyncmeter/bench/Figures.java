package dev.resyncmeter.bench;

import java.util.Locale;

/** How every figure of a run is printed: whole above 1,000, one decimal above 10, else two; "n/a" when not measured. */
final class Figures {

  private Figures() {}

  static String fmt(double value) {
    if (Double.isNaN(value)) {
      return "n/a";
    }
    double abs = Math.abs(value);
    return String.format(Locale.ROOT, abs >= 1000 ? "%.0f" : abs >= 10 ? "%.1f" : "%.2f", value);
  }
}
