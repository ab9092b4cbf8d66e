package dev.resyncmeter.collector;

/**
 * The counting row one thread used last ({@link ThreadRows}), part of its {@link ThreadContext}: a
 * worker counts for one controller, so its next count finds its row here without a thread-local
 * lookup.
 */
public final class LastRow {

  private Object rows;
  private long[] row;

  LastRow() {}

  /** This thread's row of {@code rows}, if it used that one last; else null. */
  long[] of(Object rows) {
    return this.rows == rows ? row : null;
  }

  void remember(Object rows, long[] row) {
    this.rows = rows;
    this.row = row;
  }
}
