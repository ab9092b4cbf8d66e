package dev.resyncmeter.collector;

import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot.HistogramDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;

/**
 * The upper bounds of a histogram's buckets, kept in nanoseconds so that recording compares longs,
 * and the data point that counts in them export as (in seconds).
 */
final class Buckets {

  /** client-go's workqueue buckets: 10 exponential buckets from 10 ns, factor 10. */
  static final Buckets CLIENT_GO_WORKQUEUE =
      ofSeconds(1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10);

  /** client-go's REST client latency buckets, 5 ms to 60 s. */
  static final Buckets CLIENT_GO_REST_CLIENT = ofSeconds(0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60);

  /** controller-runtime's reconcile time buckets, 5 ms to 60 s. */
  static final Buckets CONTROLLER_RUNTIME_RECONCILE =
      ofSeconds(0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5,
          1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60);

  private final long[] upperNanos;
  /** The bounds as exported, +Inf last. */
  private final double[] upperSeconds;

  private Buckets(double[] seconds) {
    upperNanos = new long[seconds.length];
    upperSeconds = new double[seconds.length + 1];
    for (int i = 0; i < seconds.length; i++) {
      upperNanos[i] = Math.round(seconds[i] * 1e9);
      upperSeconds[i] = seconds[i];
    }
    upperSeconds[seconds.length] = Double.POSITIVE_INFINITY;
  }

  static Buckets ofSeconds(double... seconds) {
    return new Buckets(seconds);
  }

  /** Buckets including +Inf: the length of a counts array. */
  int count() {
    return upperSeconds.length;
  }

  /** The bucket a value falls in: the first whose bound it does not exceed, else +Inf. */
  int indexOf(long nanos) {
    long[] bounds = upperNanos;
    int i = 0;
    while (i < bounds.length && nanos > bounds[i]) {
      i++;
    }
    return i;
  }

  /** A data point from per-bucket (not cumulative) counts followed by the sum in nanoseconds. */
  HistogramDataPointSnapshot dataPoint(Labels labels, long[] countsThenSum) {
    return HistogramDataPointSnapshot.builder()
        .labels(labels)
        .classicHistogramBuckets(ClassicHistogramBuckets.of(upperSeconds, java.util.Arrays.copyOf(countsThenSum, upperSeconds.length)))
        .sum(countsThenSum[upperSeconds.length] / 1e9)
        .build();
  }
}
