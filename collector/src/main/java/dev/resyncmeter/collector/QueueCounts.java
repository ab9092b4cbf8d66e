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
  final SerialHistogram queueDuration = new SerialHistogram(Buckets.CLIENT_GO_WORKQUEUE);
  final SerialHistogram workDuration = new SerialHistogram(Buckets.CLIENT_GO_WORKQUEUE);

  // Items being processed: one slot each, its start time read by the gauges (0: a free slot).
  private Object[] processingItems = new Object[4];
  private volatile long[] processingStartedAt = new long[4];

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

  /** {@code item} is processed from {@code now} on: returns its slot. */
  int startProcessing(Object item, long now) {
    Object[] items = processingItems;
    for (int i = 0; i < items.length; i++) {
      if (items[i] == null) {
        items[i] = item;
        Cells.set(processingStartedAt, i, now);
        return i;
      }
    }
    int slot = items.length;
    processingItems = Arrays.copyOf(items, slot * 2);
    long[] startedAt = Arrays.copyOf(processingStartedAt, slot * 2);
    startedAt[slot] = now;
    processingItems[slot] = item;
    processingStartedAt = startedAt;
    return slot;
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

  /** The item in {@code slot} (-1: none) is done at {@code now}: its work's duration is recorded. */
  void finishProcessing(int slot, long now) {
    if (slot >= 0 && processingItems[slot] != null) {
      long[] startedAt = processingStartedAt;
      workDuration.record(now - startedAt[slot]);
      processingItems[slot] = null;
      Cells.set(startedAt, slot, 0);
    }
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

  /** Seconds of work in process now, summed (negative: none), and the longest of them. */
  void addProcessing(double[] unfinishedAndLongest) {
    long now = System.nanoTime();
    long[] startedAt = processingStartedAt;
    for (int i = 0; i < startedAt.length; i++) {
      long started = Cells.read(startedAt, i);
      if (started != 0) {
        double seconds = (now - started) / 1e9;
        unfinishedAndLongest[0] += seconds;
        unfinishedAndLongest[1] = Math.max(unfinishedAndLongest[1], seconds);
      }
    }
  }
}
