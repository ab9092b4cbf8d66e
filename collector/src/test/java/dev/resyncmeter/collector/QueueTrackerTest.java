package dev.resyncmeter.collector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resyncmeter.collector.QueueTracker.AddKind;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The queue life cycle as client-java's DefaultWorkQueue reports it: add calls (nested for delayed
 * and rate-limited adds), insertions (deduplicated when the item waits already), get and done.
 */
class QueueTrackerTest {

  private final ResyncMetrics metrics = new ResyncMetrics();
  private final QueueTracker queue = metrics.queue("q");

  @AfterEach
  void closeHandlerScope() {
    HandlerCallTracker.end();
  }

  /** A plain add as the queue sees it: a call, and an insertion unless the item already waits. */
  private void add(Object item, boolean alreadyWaiting) {
    Trigger trigger = queue.addCallStarted(item, AddKind.PLAIN);
    queue.inserted(item, trigger, alreadyWaiting);
    queue.addCallFinished();
  }

  private void addFromHandler(Object item, Trigger handlerTrigger, boolean alreadyWaiting) {
    HandlerCallTracker.begin();
    HandlerCallTracker.classify(handlerTrigger);
    add(item, alreadyWaiting);
    HandlerCallTracker.end();
  }

  private double value(String series) {
    String body = metrics.scrape(null).body();
    return body.lines()
        .filter(l -> l.startsWith(series + " "))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
        .findFirst()
        .orElse(0);
  }

  @Test
  void anAddInsideAHandlerCallCarriesTheCallsTrigger() {
    addFromHandler("a", Trigger.RESYNC_NOOP, false);
    assertThat(queue.taken("a")).isEqualTo(Trigger.RESYNC_NOOP);
    assertThat(value("workqueue_trigger_adds_total{name=\"q\",trigger=\"resync_noop\"}")).isEqualTo(1);
  }

  @Test
  void anAddOutsideAnyHandlerCallIsOther() {
    add("a", false);
    assertThat(queue.taken("a")).isEqualTo(Trigger.OTHER);
  }

  @Test
  void triggersOfAWaitingItemMergeIntoTheStrongest() {
    addFromHandler("a", Trigger.RESYNC_NOOP, false);
    addFromHandler("a", Trigger.CHANGE, true);
    addFromHandler("a", Trigger.RELIST_NOOP, true);
    assertThat(queue.taken("a")).isEqualTo(Trigger.CHANGE);
    // Every add call counts, the deduplicated ones too; adds_total counts only the first.
    assertThat(value("workqueue_trigger_adds_total{name=\"q\",trigger=\"resync_noop\"}")).isEqualTo(1);
    assertThat(value("workqueue_trigger_adds_total{name=\"q\",trigger=\"change\"}")).isEqualTo(1);
    assertThat(value("workqueue_trigger_adds_total{name=\"q\",trigger=\"relist_noop\"}")).isEqualTo(1);
    assertThat(value("workqueue_adds_total{name=\"q\"}")).isEqualTo(1);
  }

  @Test
  void anItemAddedAgainWhileProcessedStartsAFreshTriggerSet() {
    addFromHandler("a", Trigger.CHANGE, false);
    assertThat(queue.taken("a")).isEqualTo(Trigger.CHANGE);
    addFromHandler("a", Trigger.RESYNC_NOOP, false); // not waiting: it is being processed
    queue.done("a", true);
    assertThat(queue.taken("a")).isEqualTo(Trigger.RESYNC_NOOP);
    queue.done("a", false);
    assertThat(queue.trackedItems()).isZero();
  }

  @Test
  void aRateLimitedAddOfTheHeldItemByItsWorkerIsARequeueAndARetry() {
    add("a", false);
    queue.taken("a");
    // addRateLimited -> addAfter -> (later) add: only the outermost call decides and counts.
    queue.addCallStarted("a", AddKind.RATE_LIMITED);
    queue.addCallStarted("a", AddKind.DELAYED);
    QueueTracker.delayedAddWaiting();
    queue.addCallFinished();
    queue.addCallFinished();
    queue.done("a", false);
    assertThat(value("workqueue_trigger_adds_total{name=\"q\",trigger=\"requeue\"}")).isEqualTo(1);
    assertThat(value("workqueue_retries_total{name=\"q\"}")).isEqualTo(1);
    // The delayed add fires on the delaying queue's thread and keeps its trigger.
    fireDelayedAdd("a");
    assertThat(queue.taken("a")).isEqualTo(Trigger.REQUEUE);
    assertThat(value("workqueue_trigger_adds_total{name=\"q\",trigger=\"requeue\"}")).isEqualTo(1);
  }

  @Test
  void aDelayedAddOfAnotherItemByAWorkerIsOther() {
    add("a", false);
    queue.taken("a");
    queue.addCallStarted("b", AddKind.DELAYED);
    QueueTracker.delayedAddWaiting();
    queue.addCallFinished();
    fireDelayedAdd("b");
    assertThat(queue.taken("b")).isEqualTo(Trigger.OTHER);
  }

  @Test
  void aDelayedAddFromAHandlerKeepsTheHandlersTrigger() {
    HandlerCallTracker.begin();
    HandlerCallTracker.classify(Trigger.RELIST_NOOP);
    delayedAdd("a", true);
    HandlerCallTracker.end();
    fireDelayedAdd("a");
    assertThat(queue.taken("a")).isEqualTo(Trigger.RELIST_NOOP);
  }

  /** A delayed add as client-java's delaying queue makes it: offered to its waiting buffer, or not. */
  private void delayedAdd(Object item, boolean accepted) {
    queue.addCallStarted(item, AddKind.DELAYED);
    QueueTracker.delayedAddWaiting();
    if (!accepted) {
      QueueTracker.delayedAddRefused();
    }
    queue.addCallFinished();
  }

  @Test
  void aDelayedAddThatTheFullBufferRefusedLeavesNothingPendingButCountsAsACall() {
    delayedAdd("a", false);
    assertThat(queue.trackedItems()).isZero();
    assertThat(value("workqueue_trigger_adds_total{name=\"q\",trigger=\"other\"}")).isEqualTo(1);
  }

  @Test
  void aRefusedDelayedAddLeavesTheTriggerOfTheOneThatStillWaits() {
    HandlerCallTracker.begin();
    HandlerCallTracker.classify(Trigger.RESYNC_NOOP);
    delayedAdd("a", true);
    HandlerCallTracker.end();
    delayedAdd("a", false); // other, stronger, but refused: it never fires
    assertThat(queue.trackedItems()).isEqualTo(1);
    fireDelayedAdd("a");
    assertThat(queue.taken("a")).isEqualTo(Trigger.RESYNC_NOOP);
    queue.done("a", false);
    assertThat(queue.trackedItems()).isZero();
  }

  @Test
  void aDelayedAddThatAShutDownQueueDropsBeforeOfferingItLeavesNothing() {
    queue.shutDown();
    queue.addCallStarted("a", AddKind.RATE_LIMITED);
    queue.addCallStarted("a", AddKind.DELAYED);
    queue.addCallFinished();
    queue.addCallFinished();
    assertThat(queue.trackedItems()).isZero();
    assertThat(value("workqueue_retries_total{name=\"q\"}")).isEqualTo(1);
  }

  @Test
  void shuttingDownForgetsDelayedAddsThatWillNeverFire() {
    for (int i = 0; i < 10; i++) {
      delayedAdd("item-" + i, true);
    }
    assertThat(queue.trackedItems()).isEqualTo(10);
    queue.shutDown();
    assertThat(queue.trackedItems()).isZero();
    // An add that passed the queue's shutdown check just before is offered after: not kept either.
    delayedAdd("late", true);
    assertThat(queue.trackedItems()).isZero();
  }

  @Test
  void stateFollowsInFlightItemsNotTheKeysEverSeen() throws Exception {
    int keys = 200_000;
    ExecutorService delaying = Executors.newSingleThreadExecutor();
    try {
      delaying.submit(QueueTracker::delayedAddsThread).get();
      for (int i = 0; i < keys; i++) {
        String key = "key-" + i;
        add(key, false);
        queue.taken(key);
        if (i % 10 == 0) {
          delayedAdd(key, i % 20 == 0); // the worker requeues; every other time the buffer is full
        }
        queue.done(key, false);
        if (i % 20 == 0) {
          delaying.submit(() -> add(key, false)).get(10, TimeUnit.SECONDS);
          queue.taken(key);
          queue.done(key, false);
        }
        assertThat(queue.trackedItems()).isZero();
      }
    } finally {
      delaying.shutdownNow();
    }
    assertThat(value("workqueue_adds_total{name=\"q\"}")).isEqualTo(keys + keys / 20);
    assertThat(value("workqueue_trigger_adds_total{name=\"q\",trigger=\"other\"}")).isEqualTo(keys);
    assertThat(value("workqueue_trigger_adds_total{name=\"q\",trigger=\"requeue\"}")).isEqualTo(keys / 10);
  }

  @Test
  void aDelayedAddWithoutDelayInsertsAtOnceAndLeavesNothingPending() {
    HandlerCallTracker.begin();
    HandlerCallTracker.classify(Trigger.WATCH_NOOP);
    Trigger outer = queue.addCallStarted("a", AddKind.DELAYED);
    Trigger inner = queue.addCallStarted("a", AddKind.PLAIN);
    queue.inserted("a", inner, false);
    queue.addCallFinished();
    queue.addCallFinished();
    HandlerCallTracker.end();
    assertThat(inner).isEqualTo(outer).isEqualTo(Trigger.WATCH_NOOP);
    assertThat(queue.taken("a")).isEqualTo(Trigger.WATCH_NOOP);
    queue.done("a", false);
    assertThat(queue.trackedItems()).isZero();
    assertThat(value("workqueue_trigger_adds_total{name=\"q\",trigger=\"watch_noop\"}")).isEqualTo(1);
  }

  @Test
  void depthCountsWaitingItemsAndReturnsToZero() {
    add("a", false);
    add("b", false);
    add("a", true);
    assertThat(value("workqueue_depth{name=\"q\"}")).isEqualTo(2);
    queue.taken("a");
    queue.taken("b");
    assertThat(value("workqueue_depth{name=\"q\"}")).isZero();
    queue.done("a", false);
    queue.done("b", false);
    assertThat(value("workqueue_queue_duration_seconds_count{name=\"q\"}")).isEqualTo(2);
    assertThat(value("workqueue_work_duration_seconds_count{name=\"q\"}")).isEqualTo(2);
  }

  @Test
  void unfinishedWorkAndLongestProcessorCoverOnlyItemsInProcess() throws InterruptedException {
    add("a", false);
    queue.taken("a");
    Thread.sleep(20);
    assertThat(value("workqueue_unfinished_work_seconds{name=\"q\"}")).isGreaterThanOrEqualTo(0.02);
    assertThat(value("workqueue_longest_running_processor_seconds{name=\"q\"}")).isGreaterThanOrEqualTo(0.02);
    queue.done("a", false);
    assertThat(value("workqueue_unfinished_work_seconds{name=\"q\"}")).isZero();
    assertThat(value("workqueue_longest_running_processor_seconds{name=\"q\"}")).isZero();
  }

  @Test
  void theWorkerKnowsTheTriggerOfTheItemItHolds() {
    addFromHandler("a", Trigger.RESYNC_NOOP, false);
    queue.taken("a");
    assertThat(QueueTracker.currentWorkerItem().trigger()).isEqualTo(Trigger.RESYNC_NOOP);
    queue.done("a", false);
    assertThat(QueueTracker.currentWorkerItem()).isNull();
  }

  private void fireDelayedAdd(Object item) {
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread delaying =
        new Thread(
            () -> {
              try {
                QueueTracker.delayedAddsThread();
                add(item, false);
              } catch (Throwable t) {
                failure.set(t);
              }
            });
    delaying.start();
    try {
      delaying.join(10_000);
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
    assertThat(failure.get()).isNull();
  }
}
