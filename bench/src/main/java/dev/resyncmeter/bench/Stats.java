package dev.resyncmeter.bench;

import java.util.ArrayList;
import java.util.List;

/** Median and range of samples. */
public record Stats(double median, double min, double max, List<Double> samples) {

  static Stats of(List<Double> samples) {
    if (samples.isEmpty()) {
      return new Stats(Double.NaN, Double.NaN, Double.NaN, List.of());
    }
    List<Double> sorted = new ArrayList<>(samples);
    sorted.sort(Double::compare);
    int n = sorted.size();
    double median = n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    return new Stats(median, sorted.get(0), sorted.get(n - 1), List.copyOf(samples));
  }

  /**
   * A distribution-free interval for the median of what the samples are drawn from, of at least 90 %
   * coverage: the k-th smallest and k-th largest sample for the largest k whose binomial tail
   * P(Bin(n, 1/2) < k) is at most 5 %. Null below five samples, where no such interval exists.
   * Returns low, high and the interval's exact coverage.
   */
  double[] medianInterval() {
    int n = samples.size();
    double tail = 0;
    double term = Math.pow(0.5, n); // P(Bin(n, 1/2) = 0)
    int k = 0;
    while (tail + term <= 0.05) {
      tail += term;
      term = term * (n - k) / (k + 1);
      k++;
    }
    if (k == 0) {
      return null;
    }
    List<Double> sorted = new ArrayList<>(samples);
    sorted.sort(Double::compare);
    return new double[] {sorted.get(k - 1), sorted.get(n - k), 1 - 2 * tail};
  }
}
