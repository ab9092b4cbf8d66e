package dev.resyncmeter.collector;

import java.util.Arrays;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one workqueue counted, and the items it processes now: written by its {@link QueueTracker}
 * (mostly under the queue's lock, see {@link Cells}), read by a scrape ({@link QueueMetrics}) without
 * it.
 */
final class QueueCounts {

  private static final Trigger[] TRIGGERS = Trigger.values();

  // Cells written under the queue's lock.
  private static final int ADDS = 0;
  private static final int DEPTH = 1;
  /** Then one cell per trigger: plain add calls made outside any other add call. */
  private static final int TRIGGER_ADDS = 2;

  private final long[] cells = new long[TRIGGER_ADDS + TRIGGERS.length];
  /** Delayed and rate-limited add calls by trigger: made outside the queue's lock. */
  private final LongAdder[] triggerAddsOutsideLock = HandlerMetrics.adders(TRIGGERS.length);
  private final LongAdder retries = new LongAdder();
  /**
   * The queue-wait and work-duration histograms, in one row per worker (a take's queue wait may be
   * recorded outside the queue's lock, at its reconcile's start, while other workers record theirs):
   * the queue wait's bucket counts and sum, then the work duration's.
   */
  private final ThreadRows durations = new ThreadRows(2 * HISTOGRAM);
  /** Cells of one histogram: one per bucket, then the sum in nanoseconds. */
  private static final int HISTOGRAM = Buckets.CLIENT_GO_WORKQUEUE.count() + 1;
  private static final int WORK = HISTOGRAM;

  // Items being processed: one slot each, claimed and freed under the queue's lock.
  private Object[] processingItems = new Object[CHUNK];
  /**
   * Their start times, read by the gauges (0: not started, or a free slot), in chunks of {@link
   * #CHUNK} slots that never move: a worker writes its slot's start outside the queue's lock, so a
   * growth must not copy the value it writes. Only the slot's holder writes it.
   */
  private volatile long[][] startChunks = {new long[CHUNK]};
  private static final int CHUNK = 8;

  // ---- written by the tracker ------------------------------------------------------------------

  /** A plain add call with {@code trigger}, under the queue's lock. */
  void plainAddCalled(Trigger trigger) {
    Cells.add(cells, TRIGGER_ADDS + trigger.ordinal(), 1);
  }

  /** A delayed or rate-limited add call with {@code trigger}, outside the queue's lock. */
  void addCalledOutsideLock(Trigger trigger, boolean retry) {
    triggerAddsOutsideLock[trigger.ordinal()].increment();
    if (retry) {
      retries.increment();
    }
  }

  /** The queue accepted an item: it waits now. */
  void accepted() {
    Cells.add(cells, ADDS, 1);
    Cells.add(cells, DEPTH, 1);
  }

  /** An accepted item was taken: it waits no more. */
  void left() {
    Cells.add(cells, DEPTH, -1);
  }

  /** {@code item} is processed from now on, its start told by {@link #started}: returns its slot. */
  int claimSlot(Object item) {
    Object[] items = processingItems;
    for (int i = 0; i < items.length; i++) {
      if (items[i] == null) {
        items[i] = item;
        return i;
      }
    }
    int slot = items.length;
    processingItems = Arrays.copyOf(items, slot + CHUNK);
    processingItems[slot] = item;
    long[][] chunks = startChunks;
    long[][] grown = Arrays.copyOf(chunks, chunks.length + 1);
    grown[chunks.length] = new long[CHUNK]; // the chunks already handed out stay where they are
    startChunks = grown;
    return slot;
  }

  /**
   * The item in {@code slot} was taken at {@code takenAt}, by the thread whose row {@code row} is;
   * {@code addedAt}: when its add was seen, or {@code queueWaitUnknown}.
   */
  void started(LastRow row, int slot, boolean queueWaitUnknown, long addedAt, long takenAt) {
    if (!queueWaitUnknown) {
      record(durations.row(row), 0, takenAt - addedAt);
    }
    Cells.set(startChunks[slot / CHUNK], slot % CHUNK, takenAt);
  }

  /** The slot of {@code item} among those processed, or -1. */
  int processingSlotOf(Object item) {
    Object[] items = processingItems;
    for (int i = 0; i < items.length; i++) {
      if (items[i] != null && items[i].equals(item)) {
        return i;
      }
    }
    return -1;
  }

  /**
   * The item in {@code slot} (-1: none) is done at {@code now}, told by the thread whose row {@code
   * row} is: its work's duration is recorded.
   */
  void finishProcessing(LastRow row, int slot, long now) {
    if (slot >= 0 && processingItems[slot] != null) {
      long[] chunk = startChunks[slot / CHUNK];
      long started = Cells.read(chunk, slot % CHUNK);
      // 0: done by a thread other than the one that took it, before that one read the clock for it
      record(durations.row(row), WORK, started == 0 ? 0 : now - started);
      processingItems[slot] = null;
      Cells.set(chunk, slot % CHUNK, 0);
    }
  }

  private void record(long[] row, int histogram, long nanos) {
    durations.addTo(row, histogram + Buckets.CLIENT_GO_WORKQUEUE.indexOf(nanos), 1);
    durations.addTo(row, histogram + HISTOGRAM - 1, nanos);
  }

  /** Items being processed now. */
  int processing() {
    int processing = 0;
    for (Object item : processingItems) {
      if (item != null) {
        processing++;
      }
    }
    return processing;
  }

  // ---- read by a scrape, without the queue's lock ------------------------------------------------

  long adds() {
    return Cells.read(cells, ADDS);
  }

  long retries() {
    return retries.sum();
  }

  long depth() {
    return Cells.read(cells, DEPTH);
  }

  /** Add calls with {@code trigger}, of every kind. */
  long triggerAdds(Trigger trigger) {
    return Cells.read(cells, TRIGGER_ADDS + trigger.ordinal()) + triggerAddsOutsideLock[trigger.ordinal()].sum();
  }

  /** Adds the queue-wait and work-duration histograms (bucket counts, then the sum) into the totals given. */
  void addDurations(long[] queueWaitTotals, long[] workTotals) {
    long[] rows = durations.sum();
    for (int i = 0; i < HISTOGRAM; i++) {
      queueWaitTotals[i] += rows[i];
      workTotals[i] += rows[WORK + i];
    }
  }

  /** A zeroed array for {@link #addDurations}. */
  static long[] durationTotals() {
    return new long[HISTOGRAM];
  }

  /** Seconds of work in process now, summed (negative: none), and the longest of them. */
  void addProcessing(double[] unfinishedAndLongest) {
    long now = System.nanoTime();
    for (long[] chunk : startChunks) {
      for (int i = 0; i < chunk.length; i++) {
        long started = Cells.read(chunk, i);
        if (started != 0) {
          double seconds = (now - started) / 1e9;
          unfinishedAndLongest[0] += seconds;
          unfinishedAndLongest[1] = Math.max(unfinishedAndLongest[1], seconds);
        }
      }
    }
  }
}
