package dev.resyncmeter.collector;

import java.util.Arrays;

/**
 * Counts that several threads add to at once (the workers of one controller), each thread in a row
 * of its own. A count is then a plain write to memory no other thread writes: no locked instruction,
 * and no cache line moving between cores on every count, as a shared counter's does (a {@code
 * LongAdder} still pays a compare-and-swap per count). A scrape sums the rows.
 *
 * <p>A thread finds its row through its {@link LastRow} (one entry: a worker counts for one
 * controller). Rows outlive their threads, as their counts must; past {@link #MAX_ROWS} threads, the
 * rest share one row and add to it atomically, so a host that keeps making threads holds a bounded
 * number of rows.
 */
final class ThreadRows {

  /** Rows of their own for this many threads at most. */
  static final int MAX_ROWS = 64;

  private final int width;
  /** Threads' own rows, appended under this object's lock; read without it. */
  private volatile long[][] rows = new long[0][];
  /** The row of the threads that came after {@link #MAX_ROWS}: added to atomically. */
  private final long[] sharedRow;
  private final ThreadLocal<long[]> rowOfThread = ThreadLocal.withInitial(this::newRow);

  ThreadRows(int width) {
    this.width = width;
    this.sharedRow = new long[width];
  }

  /** Adds {@code delta} to cell {@code i} of the calling thread's row; {@code last} is that thread's own. */
  void add(LastRow last, int i, long delta) {
    addTo(row(last), i, delta);
  }

  /** The calling thread's row, for several {@link #addTo} calls; {@code last} is that thread's own. */
  long[] row(LastRow last) {
    long[] row = last.of(this);
    if (row == null) {
      row = rowOfThread.get();
      last.remember(this, row);
    }
    return row;
  }

  /** Adds {@code delta} to cell {@code i} of {@code row}, a row {@link #row} gave the calling thread. */
  void addTo(long[] row, int i, long delta) {
    if (row == sharedRow) {
      Cells.addAtomically(row, i, delta);
    } else {
      Cells.add(row, i, delta); // this thread is the row's only writer
    }
  }

  /** Every row summed, cell by cell. */
  long[] sum() {
    long[] totals = new long[width];
    for (long[] row : rows) {
      addRow(row, totals);
    }
    addRow(sharedRow, totals);
    return totals;
  }

  private static void addRow(long[] row, long[] totals) {
    for (int i = 0; i < totals.length; i++) {
      totals[i] += Cells.read(row, i);
    }
  }

  private synchronized long[] newRow() {
    long[][] current = rows;
    if (current.length >= MAX_ROWS) {
      return sharedRow;
    }
    long[] row = new long[width];
    long[][] grown = Arrays.copyOf(current, current.length + 1);
    grown[current.length] = row;
    rows = grown;
    return row;
  }

  /** Rows of their own handed out so far (for tests). */
  int ownRows() {
    return rows.length;
  }
}
