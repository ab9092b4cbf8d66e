package dev.resyncmeter.collector;

import java.util.concurrent.atomic.LongAdder;

/**
 * A histogram that many threads record into at once (the threads that send API requests): a
 * {@link LongAdder} per bucket and one for the sum, read at scrape time. Recording allocates
 * nothing once the adders exist and reads no clock.
 */
final class ConcurrentHistogram {

  private final Buckets buckets;
  private final LongAdder[] counts;
  private final LongAdder sumNanos = new LongAdder();

  ConcurrentHistogram(Buckets buckets) {
    this.buckets = buckets;
    this.counts = new LongAdder[buckets.count()];
    for (int i = 0; i < counts.length; i++) {
      counts[i] = new LongAdder();
    }
  }

  void record(long nanos) {
    counts[buckets.indexOf(nanos)].increment();
    sumNanos.add(nanos);
  }

  /** Per-bucket counts, then the sum in nanoseconds (the layout {@link Buckets#dataPoint} reads). */
  long[] read() {
    long[] totals = new long[counts.length + 1];
    for (int i = 0; i < counts.length; i++) {
      totals[i] = counts[i].sum();
    }
    totals[counts.length] = sumNanos.sum();
    return totals;
  }
}
