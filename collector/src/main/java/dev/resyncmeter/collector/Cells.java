package dev.resyncmeter.collector;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Counters in a {@code long[]} that one writer at a time updates (it holds the host's lock, such as
 * a workqueue's monitor) and a scrape reads without that lock. Release writes and acquire reads
 * make every written value visible to the scrape; on x86 both compile to plain moves, so a count
 * costs what {@code a[i]++} costs.
 */
final class Cells {

  private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

  private Cells() {}

  /** Adds {@code delta} to cell {@code i}; the caller is the only writer at this moment. */
  static void add(long[] cells, int i, long delta) {
    LONGS.setRelease(cells, i, cells[i] + delta);
  }

  static void set(long[] cells, int i, long value) {
    LONGS.setRelease(cells, i, value);
  }

  /** Adds {@code delta} to cell {@code i} where several writers may add at once. */
  static void addAtomically(long[] cells, int i, long delta) {
    LONGS.getAndAdd(cells, i, delta);
  }

  /** Cell {@code i} as last written by any thread. */
  static long read(long[] cells, int i) {
    return (long) LONGS.getAcquire(cells, i);
  }
}
