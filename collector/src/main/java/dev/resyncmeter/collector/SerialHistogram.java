package dev.resyncmeter.collector;

/**
 * A histogram that one writer at a time records into, under a lock the caller holds (a workqueue's
 * monitor): a count per bucket and the sum, in a plain array that a scrape reads without the lock
 * (see {@link Cells}). Recording allocates nothing and reads no clock.
 */
final class SerialHistogram {

  private final Buckets buckets;
  /** One cell per bucket, then the sum in nanoseconds. */
  private final long[] cells;

  SerialHistogram(Buckets buckets) {
    this.buckets = buckets;
    this.cells = new long[buckets.count() + 1];
  }

  void record(long nanos) {
    Cells.add(cells, buckets.indexOf(nanos), 1);
    Cells.add(cells, cells.length - 1, nanos);
  }

  /** Adds this histogram's counts and sum into {@code totals} (a bucket array plus the sum). */
  void addTo(long[] totals) {
    for (int i = 0; i < cells.length; i++) {
      totals[i] += Cells.read(cells, i);
    }
  }

  /** A zeroed array for {@link #addTo}. */
  static long[] totals(Buckets buckets) {
    return new long[buckets.count() + 1];
  }
}
