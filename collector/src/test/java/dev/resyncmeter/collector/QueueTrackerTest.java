package dev.resyncmeter.collector;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The queue life cycle as client-java's DefaultWorkQueue reports it (see {@link ModelQueue}): add
 * calls (nested for delayed and rate-limited adds, deduplicated when the item waits already), get
 * and done, and the trigger each item is processed for.
 */
class QueueTrackerTest {

  private final Observability observability = new Observability();
  private final ResyncMetrics metrics = new ResyncMetrics(observability);
  private final QueueTracker tracker = metrics.queue("q");
  private final ModelQueue queue = new ModelQueue(tracker);
  private final ThreadContext context = ThreadContext.current();

  @AfterEach
  void releaseThisThread() {
    context.handlerCall().end();
    if (context.held().item() != null) {
      tracker.done(context, context.held().item(), false);
    }
    // the next test starts on an application worker's thread: its first take reads the clock at once
    processWithoutReconcile(new ModelQueue(metrics.queue("scratch")));
  }

  private static void processWithoutReconcile(ModelQueue queue) {
    queue.add("scratch");
    queue.done(queue.get());
  }

  /** Makes this thread a controller's worker: a timed reconcile followed its last take. */
  private void reconcileOnce() {
    ModelQueue warmUp = new ModelQueue(metrics.queue("warm-up"));
    warmUp.add("w");
    warmUp.get();
    context.held().reconcileStarted();
    context.held().reconcileEnded();
    warmUp.done("w");
  }

  /** Runs {@code adds} inside a handler call whose trigger is {@code handlerTrigger}. */
  private void fromHandler(Trigger handlerTrigger, Runnable adds) {
    context.handlerCall().begin();
    context.handlerCall().classify(handlerTrigger);
    adds.run();
    context.handlerCall().end();
  }

  private void addFromHandler(Object item, Trigger handlerTrigger) {
    fromHandler(handlerTrigger, () -> queue.add(item));
  }

  /** Takes the next item and returns the trigger its worker reconciles it for. */
  private Trigger take(Object expectedItem) {
    assertThat(queue.get()).isEqualTo(expectedItem);
    return context.held().trigger();
  }

  /** Takes the next item, and is done with it: returns the trigger its worker reconciled it for. */
  private Trigger process(Object expectedItem) {
    Trigger trigger = take(expectedItem);
    queue.done(expectedItem);
    return trigger;
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
    addFromHandler("a", Trigger.RESYNC_NOOP);
    assertThat(take("a")).isEqualTo(Trigger.RESYNC_NOOP);
    assertThat(value("workqueue_trigger_adds_total{name=\"q\",trigger=\"resync_noop\"}")).isEqualTo(1);
  }

  @Test
  void anAddOutsideAnyHandlerCallIsOther() {
    queue.add("a");
    assertThat(take("a")).isEqualTo(Trigger.OTHER);
  }

  @Test
  void withAnInformerInstrumentationOffAnAddOutsideASeenHandlerCallIsUnknown() {
    observability.handlerCallsBecameUnobservable();
    queue.add("a");
    addFromHandler("b", Trigger.RESYNC_NOOP);
    assertThat(take("a")).isEqualTo(Trigger.UNKNOWN);
    tracker.done(context, "a", false);
    // a handler call that is seen still tells its trigger
    assertThat(take("b")).isEqualTo(Trigger.RESYNC_NOOP);
    assertThat(value("workqueue_trigger_adds_total{name=\"q\",trigger=\"unknown\"}")).isEqualTo(1);
    assertThat(value("workqueue_trigger_adds_total{name=\"q\",trigger=\"other\"}")).isZero();
  }

  @Test
  void triggersOfAWaitingItemMergeIntoTheStrongest() {
    addFromHandler("a", Trigger.RESYNC_NOOP);
    addFromHandler("a", Trigger.CHANGE);
    addFromHandler("a", Trigger.RELIST_NOOP);
    assertThat(take("a")).isEqualTo(Trigger.CHANGE);
    // Every add call counts, the deduplicated ones too; adds_total counts only the first.
    assertThat(value("workqueue_trigger_adds_total{name=\"q\",trigger=\"resync_noop\"}")).isEqualTo(1);
    assertThat(value("workqueue_trigger_adds_total{name=\"q\",trigger=\"change\"}")).isEqualTo(1);
    assertThat(value("workqueue_trigger_adds_total{name=\"q\",trigger=\"relist_noop\"}")).isEqualTo(1);
    assertThat(value("workqueue_adds_total{name=\"q\"}")).isEqualTo(1);
  }

  @Test
  void itemsKeepTheirOwnTriggersInQueueOrder() {
    addFromHandler("a", Trigger.RESYNC_NOOP);
    addFromHandler("b", Trigger.CHANGE);
    addFromHandler("c", Trigger.WATCH_NOOP);
    addFromHandler("a", Trigger.RELIST_NOOP); // merges into the waiting a
    assertThat(process("a")).isEqualTo(Trigger.RELIST_NOOP);
    assertThat(process("b")).isEqualTo(Trigger.CHANGE);
    assertThat(process("c")).isEqualTo(Trigger.WATCH_NOOP);
    assertThat(tracker.trackedItems()).isZero();
  }

  @Test
  void anItemAddedAgainWhileProcessedStartsAFreshTriggerSet() {
    addFromHandler("a", Trigger.CHANGE);
    assertThat(take("a")).isEqualTo(Trigger.CHANGE);
    addFromHandler("a", Trigger.RESYNC_NOOP); // not waiting: it is being processed
    addFromHandler("a", Trigger.WATCH_NOOP); // merges into the add made while processed
    queue.done("a");
    assertThat(process("a")).isEqualTo(Trigger.WATCH_NOOP);
    assertThat(tracker.trackedItems()).isZero();
    assertThat(value("workqueue_adds_total{name=\"q\"}")).isEqualTo(2);
    assertThat(value("workqueue_queue_duration_seconds_count{name=\"q\"}")).isEqualTo(2);
    assertThat(value("workqueue_work_duration_seconds_count{name=\"q\"}")).isEqualTo(2);
  }

  @Test
  void aRateLimitedAddOfTheHeldItemByItsWorkerIsARequeueAndARetry() {
    queue.add("a");
    take("a");
    // addRateLimited -> addAfter -> (later) add: only the outermost call decides and counts.
    queue.addRateLimited("a");
    queue.done("a");
    assertThat(value("workqueue_trigger_adds_total{name=\"q\",trigger=\"requeue\"}")).isEqualTo(1);
    assertThat(value("workqueue_retries_total{name=\"q\"}")).isEqualTo(1);
    // The delayed add fires on the delaying queue's thread and keeps its trigger.
    queue.fireDelayedAdd("a");
    assertThat(take("a")).isEqualTo(Trigger.REQUEUE);
    assertThat(value("workqueue_trigger_adds_total{name=\"q\",trigger=\"requeue\"}")).isEqualTo(1);
  }

  @Test
  void aDelayedAddOfAnotherItemByAWorkerIsOther() {
    queue.add("a");
    take("a");
    queue.addAfter("b", true, true);
    queue.fireDelayedAdd("b");
    queue.done("a");
    assertThat(take("b")).isEqualTo(Trigger.OTHER);
  }

  @Test
  void aDelayedAddFromAHandlerKeepsTheHandlersTrigger() {
    fromHandler(Trigger.RELIST_NOOP, () -> queue.addAfter("a", true, true));
    queue.fireDelayedAdd("a");
    assertThat(take("a")).isEqualTo(Trigger.RELIST_NOOP);
  }

  @Test
  void aDelayedAddThatTheFullBufferRefusedLeavesNothingPendingButCountsAsACall() {
    queue.addAfter("a", true, false);
    assertThat(tracker.trackedItems()).isZero();
    assertThat(value("workqueue_trigger_adds_total{name=\"q\",trigger=\"other\"}")).isEqualTo(1);
  }

  @Test
  void aRefusedDelayedAddLeavesTheTriggerOfTheOneThatStillWaits() {
    fromHandler(Trigger.RESYNC_NOOP, () -> queue.addAfter("a", true, true));
    queue.addAfter("a", true, false); // other, stronger, but refused: it never fires
    assertThat(tracker.trackedItems()).isEqualTo(1);
    queue.fireDelayedAdd("a");
    assertThat(process("a")).isEqualTo(Trigger.RESYNC_NOOP);
    assertThat(tracker.trackedItems()).isZero();
  }

  @Test
  void aDelayedAddThatAShutDownQueueDropsBeforeOfferingItLeavesNothing() {
    queue.shutDown();
    queue.addRateLimited("a");
    assertThat(tracker.trackedItems()).isZero();
    assertThat(value("workqueue_retries_total{name=\"q\"}")).isEqualTo(1);
  }

  @Test
  void shuttingDownForgetsDelayedAddsThatWillNeverFire() {
    for (int i = 0; i < 10; i++) {
      queue.addAfter("item-" + i, true, true);
    }
    assertThat(tracker.trackedItems()).isEqualTo(10);
    queue.shutDown();
    assertThat(tracker.trackedItems()).isZero();
  }

  @Test
  void aDelayedAddWithoutDelayInsertsAtOnceAndLeavesNothingPending() {
    fromHandler(Trigger.WATCH_NOOP, () -> queue.addAfter("a", false, true));
    assertThat(process("a")).isEqualTo(Trigger.WATCH_NOOP);
    assertThat(tracker.trackedItems()).isZero();
    assertThat(value("workqueue_trigger_adds_total{name=\"q\",trigger=\"watch_noop\"}")).isEqualTo(1);
  }

  @Test
  void stateFollowsInFlightItemsNotTheKeysEverSeen() throws Exception {
    int keys = 200_000;
    ExecutorService delaying = Executors.newSingleThreadExecutor();
    try {
      delaying.submit(() -> ThreadContext.current().addCall().firesDelayedAdds()).get();
      for (int i = 0; i < keys; i++) {
        String key = "key-" + i;
        queue.add(key);
        take(key);
        if (i % 10 == 0) {
          queue.addAfter(key, true, i % 20 == 0); // the worker requeues; every other time the buffer is full
        }
        queue.done(key);
        if (i % 20 == 0) {
          delaying.submit(() -> queue.add(key)).get(10, TimeUnit.SECONDS);
          take(key);
          queue.done(key);
        }
        assertThat(tracker.trackedItems()).isZero();
      }
    } finally {
      delaying.shutdownNow();
    }
    assertThat(value("workqueue_adds_total{name=\"q\"}")).isEqualTo(keys + keys / 20);
    assertThat(value("workqueue_trigger_adds_total{name=\"q\",trigger=\"other\"}")).isEqualTo(keys);
    assertThat(value("workqueue_trigger_adds_total{name=\"q\",trigger=\"requeue\"}")).isEqualTo(keys / 10);
  }

  @Test
  void aBurstOfWaitingItemsIsTimedInOrderAndLeavesNothingBehind() {
    int burst = 5_000;
    for (int i = 0; i < burst; i++) {
      addFromHandler("key-" + i, i % 2 == 0 ? Trigger.RESYNC_NOOP : Trigger.CHANGE);
    }
    assertThat(value("workqueue_depth{name=\"q\"}")).isEqualTo(burst);
    for (int i = 0; i < burst; i++) {
      assertThat(process("key-" + i)).isEqualTo(i % 2 == 0 ? Trigger.RESYNC_NOOP : Trigger.CHANGE);
    }
    assertThat(tracker.trackedItems()).isZero();
    assertThat(value("workqueue_depth{name=\"q\"}")).isZero();
    assertThat(value("workqueue_queue_duration_seconds_count{name=\"q\"}")).isEqualTo(burst);
    assertThat(value("workqueue_work_duration_seconds_count{name=\"q\"}")).isEqualTo(burst);
  }

  @Test
  void waitingItemsKeepTheirOrderWhenTheirMirrorWrapsAroundAndGrows() {
    int added = 0;
    int taken = 0;
    // take and add in turns, so the waiting items wrap around the mirror's end before it grows (16 first)
    for (int turn = 0; turn < 6; turn++) {
      for (int i = 0; i < 11; i++, added++) {
        addFromHandler("key-" + added, added % 3 == 0 ? Trigger.CHANGE : Trigger.RESYNC_NOOP);
      }
      for (int i = 0; i < 7; i++, taken++) {
        assertThat(process("key-" + taken)).isEqualTo(taken % 3 == 0 ? Trigger.CHANGE : Trigger.RESYNC_NOOP);
      }
    }
    for (; taken < added; taken++) {
      assertThat(process("key-" + taken)).isEqualTo(taken % 3 == 0 ? Trigger.CHANGE : Trigger.RESYNC_NOOP);
    }
    assertThat(tracker.trackedItems()).isZero();
    assertThat(value("workqueue_depth{name=\"q\"}")).isZero();
    assertThat(value("workqueue_queue_duration_seconds_count{name=\"q\"}")).isEqualTo(added);
  }

  @Test
  void depthCountsWaitingItemsAndReturnsToZero() {
    queue.add("a");
    queue.add("b");
    queue.add("a");
    assertThat(value("workqueue_depth{name=\"q\"}")).isEqualTo(2);
    queue.get();
    Object a = context.held().item();
    queue.done(a);
    queue.get();
    assertThat(value("workqueue_depth{name=\"q\"}")).isZero();
    queue.done("b");
    assertThat(value("workqueue_queue_duration_seconds_count{name=\"q\"}")).isEqualTo(2);
    assertThat(value("workqueue_work_duration_seconds_count{name=\"q\"}")).isEqualTo(2);
  }

  @Test
  void anItemQueuedBeforeTheTrackerSawAnyAddIsUnknownAndNotTimedInTheQueue() {
    queue.addUnseen("old"); // as after a late attach
    addFromHandler("new", Trigger.CHANGE);
    assertThat(value("workqueue_depth{name=\"q\"}")).isEqualTo(1);
    assertThat(process("old")).isEqualTo(Trigger.UNKNOWN);
    assertThat(process("new")).isEqualTo(Trigger.CHANGE);
    assertThat(value("workqueue_depth{name=\"q\"}")).isZero();
    assertThat(value("workqueue_queue_duration_seconds_count{name=\"q\"}")).isEqualTo(1);
    assertThat(value("workqueue_work_duration_seconds_count{name=\"q\"}")).isEqualTo(2);
    assertThat(tracker.trackedItems()).isZero();
  }

  @Test
  void aNoopAddMergedIntoAnItemQueuedUnseenLeavesItUnknownAndAChangeMakesItAChange() {
    queue.addUnseen("old");
    queue.addUnseen("changed");
    addFromHandler("old", Trigger.RESYNC_NOOP);
    addFromHandler("old", Trigger.OTHER);
    addFromHandler("changed", Trigger.CHANGE);
    assertThat(process("old")).isEqualTo(Trigger.UNKNOWN);
    assertThat(process("changed")).isEqualTo(Trigger.CHANGE);
  }

  @Test
  void theWorkerKnowsWhetherItAskedForItsItemToComeBack() {
    queue.add("a");
    take("a");
    assertThat(context.held().requeued()).isFalse();
    queue.addRateLimited("a");
    assertThat(context.held().requeued()).isTrue();
    queue.done("a");
    queue.fireDelayedAdd("a");
    take("a");
    assertThat(context.held().requeued()).as("a fresh take").isFalse();
  }

  @Test
  void aTakeSeenLateGetsTheTriggerOfItsAddAndLeavesTheOthersTheirs() throws InterruptedException {
    addFromHandler("resynced", Trigger.RESYNC_NOOP);
    addFromHandler("changed", Trigger.CHANGE);
    addFromHandler("next", Trigger.RELIST_NOOP);
    assertThat(queue.getUnseen()).isEqualTo("resynced"); // two workers still inside an old get()
    assertThat(queue.getUnseen()).isEqualTo("changed");
    Thread.sleep(5);
    assertThat(process("next")).isEqualTo(Trigger.RELIST_NOOP); // a take the agent sees passes both
    queue.seenLate("changed");
    assertThat(context.held().trigger()).isEqualTo(Trigger.CHANGE);
    assertThat(System.nanoTime() - context.held().since()).as("timed from its add").isGreaterThanOrEqualTo(5_000_000);
    queue.done("changed");
    queue.seenLate("resynced");
    assertThat(context.held().trigger()).isEqualTo(Trigger.RESYNC_NOOP);
    queue.done("resynced");
    assertThat(value("workqueue_depth{name=\"q\"}")).isZero();
    assertThat(value("workqueue_work_duration_seconds_count{name=\"q\"}")).isEqualTo(3);
    assertThat(tracker.trackedItems()).isZero();
  }

  @Test
  void aTakeSeenLateOfAnItemQueuedUnseenIsUnknown() {
    queue.addUnseen("old");
    assertThat(queue.getUnseen()).isEqualTo("old");
    queue.seenLate("old");
    assertThat(context.held().trigger()).isEqualTo(Trigger.UNKNOWN);
    queue.done("old");
    assertThat(tracker.trackedItems()).isZero();
  }

  @Test
  void unfinishedWorkAndLongestProcessorCoverOnlyItemsInProcess() throws InterruptedException {
    queue.add("a");
    take("a");
    Thread.sleep(20);
    assertThat(value("workqueue_unfinished_work_seconds{name=\"q\"}")).isGreaterThanOrEqualTo(0.02);
    assertThat(value("workqueue_longest_running_processor_seconds{name=\"q\"}")).isGreaterThanOrEqualTo(0.02);
    queue.done("a");
    assertThat(value("workqueue_unfinished_work_seconds{name=\"q\"}")).isZero();
    assertThat(value("workqueue_longest_running_processor_seconds{name=\"q\"}")).isZero();
  }

  @Test
  void theWorkerKnowsTheTriggerOfTheItemItHoldsUntilDone() {
    addFromHandler("a", Trigger.RESYNC_NOOP);
    take("a");
    assertThat(context.held().trigger()).isEqualTo(Trigger.RESYNC_NOOP);
    queue.done("a");
    assertThat(context.held().item()).isNull();
    assertThat(context.held().trigger()).isEqualTo(Trigger.OTHER);
  }

  @Test
  void aCollectedQueueKeepsItsCountsInItsNamesTotals() {
    queue.add("a");
    take("a");
    queue.done("a");
    QueueTracker second = metrics.queue("q");
    new ModelQueue(second).add("b");
    assertThat(value("workqueue_adds_total{name=\"q\"}")).isEqualTo(2);
    assertThat(value("workqueue_depth{name=\"q\"}")).isEqualTo(1);
    second.retire();
    assertThat(value("workqueue_adds_total{name=\"q\"}")).isEqualTo(2);
    assertThat(value("workqueue_depth{name=\"q\"}")).isZero();
    assertThat(value("workqueue_queue_duration_seconds_count{name=\"q\"}")).isEqualTo(1);
  }

  @Test
  void aReconcileOfTheHeldItemSharesItsClockReadsWithGetAndDone() throws InterruptedException {
    queue.add("a");
    take("a");
    long start = context.held().reconcileStarted(); // the get's clock: no read of its own
    assertThat(context.held().reconcileStarted()).as("a second reconcile reads the clock").isGreaterThanOrEqualTo(start);
    Thread.sleep(20);
    long end = context.held().reconcileEnded();
    Thread.sleep(200);
    queue.done("a"); // ends the work when the reconcile ended, not 200 ms later
    double workSeconds = value("workqueue_work_duration_seconds_sum{name=\"q\"}");
    assertThat(workSeconds).isEqualTo((end - start) / 1e9, org.assertj.core.data.Offset.offset(1e-9)).isLessThan(0.2);
  }

  /** A handler call on an update that waits for a write's answer to be told an echo, adding {@code item}. */
  private PendingEcho addOnPendingEcho(Object item) {
    metrics.ownWrites().writeSent("ns/" + item);
    PendingEcho echo = metrics.ownWrites().check(new WrittenObject("ns", item.toString(), "uid-" + item, "5"));
    context.handlerCall().begin();
    context.handlerCall().classify(Trigger.OWN_WRITE, echo);
    queue.add(item);
    context.handlerCall().end();
    return echo;
  }

  private void answered(Object item, String version) {
    metrics.ownWrites().writeAnswered("ns/" + item, new WrittenObject("ns", item.toString(), "uid-" + item, version));
  }

  @Test
  void anAddOnAnEchoWhoseAnswerCameAfterItIsAnOwnWriteAndCountsWhenTheAnswerComes() {
    addOnPendingEcho("a");
    assertThat(value("workqueue_trigger_adds_total{name=\"q\",trigger=\"own_write\"}")).as("not told yet").isZero();

    answered("a", "5");

    assertThat(value("workqueue_trigger_adds_total{name=\"q\",trigger=\"own_write\"}")).isEqualTo(1);
    assertThat(process("a")).isEqualTo(Trigger.OWN_WRITE);
  }

  @Test
  void anAddOnAnUpdateThatTurnsOutSomeoneElsesIsAChange() {
    addOnPendingEcho("a");
    answered("a", "4");

    assertThat(value("workqueue_trigger_adds_total{name=\"q\",trigger=\"change\"}")).isEqualTo(1);
    assertThat(value("workqueue_trigger_adds_total{name=\"q\",trigger=\"own_write\"}")).isZero();
    assertThat(process("a")).isEqualTo(Trigger.CHANGE);
  }

  /** The worker takes {@code item} before its echo is told, and reconciles it: two gets, no write. */
  private void reconciledBeforeTheAnswer(Object item) {
    take(item);
    java.util.List<PendingEcho> awaited = context.held().awaitedEchoes();
    assertThat(awaited).as("the reconcile waits for the answer").hasSize(1);
    long[] requests = new long[ApiVerb.values().length];
    requests[ApiVerb.GET.ordinal()] = 2;
    metrics.controller("c").reconciledAfterEchoes(awaited, ReconcileResult.SUCCESS, 1_000_000, ReconcileEffect.NONE, requests);
    queue.done(item);
    assertThat(value("controller_reconcile_total{controller=\"c\",result=\"success\",trigger=\"own_write\"}")
            + value("controller_reconcile_total{controller=\"c\",result=\"success\",trigger=\"change\"}"))
        .as("not counted before the answer")
        .isZero();
  }

  @Test
  void aReconcileOfAnEchoTakenBeforeItsWritesAnswerCountsAsOwnWriteWhenTheAnswerComes() {
    addOnPendingEcho("a");
    reconciledBeforeTheAnswer("a");

    answered("a", "5");

    assertThat(value("controller_reconcile_total{controller=\"c\",result=\"success\",trigger=\"own_write\"}")).isEqualTo(1);
    assertThat(value("controller_reconcile_duration_seconds_count{controller=\"c\",trigger=\"own_write\"}")).isEqualTo(1);
    assertThat(value("controller_reconcile_effect_total{controller=\"c\",effect=\"none\",trigger=\"own_write\"}")).isEqualTo(1);
    assertThat(value("controller_reconcile_api_requests_total{controller=\"c\",trigger=\"own_write\",verb=\"get\"}")).isEqualTo(2);
  }

  @Test
  void aReconcileTakenBeforeTheAnswerOfAnUpdateThatWasSomeoneElsesCountsAsAChange() {
    addOnPendingEcho("a");
    reconciledBeforeTheAnswer("a");

    answered("a", "4");

    assertThat(value("controller_reconcile_total{controller=\"c\",result=\"success\",trigger=\"change\"}")).isEqualTo(1);
    assertThat(value("controller_reconcile_api_requests_total{controller=\"c\",trigger=\"change\",verb=\"get\"}")).isEqualTo(2);
    assertThat(value("controller_reconcile_total{controller=\"c\",result=\"success\",trigger=\"own_write\"}")).isZero();
  }

  @Test
  void aRealChangeMergedWithAnEchoOutranksIt() {
    addOnPendingEcho("a");
    addFromHandler("a", Trigger.CHANGE);
    answered("a", "5");
    assertThat(process("a")).isEqualTo(Trigger.CHANGE);
  }

  @Test
  void anEchoOutranksTheNoopTriggersItMergesWith() {
    addFromHandler("a", Trigger.RESYNC_NOOP);
    addFromHandler("a", Trigger.OWN_WRITE);
    assertThat(process("a")).isEqualTo(Trigger.OWN_WRITE);
  }

  // ---- a take under the lock leaves its clock read to the reconcile that follows -----------------

  @Test
  void aControllerWorkersTakeIsTimedAtItsReconcilesStartItsQueueWaitEndingThere() throws InterruptedException {
    reconcileOnce();
    long beforeAdd = System.nanoTime();
    queue.add("a");
    long afterAdd = System.nanoTime();
    Thread.sleep(20);
    take("a");
    assertThat(value("workqueue_queue_duration_seconds_count{name=\"q\"}")).as("nothing recorded under the lock").isZero();
    assertThat(value("workqueue_unfinished_work_seconds{name=\"q\"}")).as("not started before its reconcile").isZero();
    long start = context.held().reconcileStarted(); // the take's clock and the reconcile's start: one read
    assertThat(value("workqueue_queue_duration_seconds_count{name=\"q\"}")).isEqualTo(1);
    double waited = value("workqueue_queue_duration_seconds_sum{name=\"q\"}");
    assertThat(waited).isBetween((start - afterAdd) / 1e9, (start - beforeAdd) / 1e9).isGreaterThanOrEqualTo(0.02);
    assertThat(context.held().since()).isEqualTo(start);
    Thread.sleep(5);
    long end = context.held().reconcileEnded();
    queue.done("a");
    assertThat(value("workqueue_work_duration_seconds_count{name=\"q\"}")).isEqualTo(1);
    assertThat(value("workqueue_work_duration_seconds_sum{name=\"q\"}")).isEqualTo((end - start) / 1e9, org.assertj.core.data.Offset.offset(1e-9));
  }

  @Test
  void anApplicationWorkersTakeIsTimedAtOnce() throws InterruptedException {
    reconcileOnce();
    processWithoutReconcile(new ModelQueue(metrics.queue("other"))); // no timed reconcile followed this take
    queue.add("a");
    long beforeTake = System.nanoTime();
    take("a");
    long afterTake = System.nanoTime();
    assertThat(value("workqueue_queue_duration_seconds_count{name=\"q\"}")).as("recorded at its take").isEqualTo(1);
    assertThat(context.held().since()).isBetween(beforeTake, afterTake);
    Thread.sleep(20);
    assertThat(value("workqueue_unfinished_work_seconds{name=\"q\"}")).isGreaterThanOrEqualTo(0.02);
    queue.done("a");
  }

  @Test
  void aFirstTakeOnAThreadIsTimedAtOnce() throws Exception {
    queue.add("a");
    ExecutorService worker = Executors.newSingleThreadExecutor();
    try {
      worker.submit(() -> queue.get()).get(10, TimeUnit.SECONDS);
      assertThat(value("workqueue_queue_duration_seconds_count{name=\"q\"}")).isEqualTo(1);
      worker.submit(() -> queue.done("a")).get(10, TimeUnit.SECONDS);
      assertThat(value("workqueue_work_duration_seconds_count{name=\"q\"}")).isEqualTo(1);
    } finally {
      worker.shutdownNow();
    }
  }

  @Test
  void aControllerWorkersTakeFollowedByDoneWithoutAReconcileIsTimedAtItsDone() throws InterruptedException {
    reconcileOnce();
    queue.add("a");
    take("a");
    Thread.sleep(20);
    queue.done("a");
    assertThat(value("workqueue_queue_duration_seconds_count{name=\"q\"}")).isEqualTo(1);
    assertThat(value("workqueue_queue_duration_seconds_sum{name=\"q\"}")).as("waited until its done").isGreaterThanOrEqualTo(0.02);
    assertThat(value("workqueue_work_duration_seconds_count{name=\"q\"}")).isEqualTo(1);
    assertThat(value("workqueue_work_duration_seconds_sum{name=\"q\"}")).isZero();
    // no reconcile followed that take: the next one is timed at once again
    queue.add("b");
    take("b");
    assertThat(value("workqueue_queue_duration_seconds_count{name=\"q\"}")).isEqualTo(2);
  }

  @Test
  void workersRecordInRowsOfTheirOwnAndTheirCountsAddUp() throws Exception {
    int workers = 4;
    int itemsEach = 500;
    for (int i = 0; i < workers * itemsEach; i++) {
      queue.add(i);
    }
    ExecutorService pool = Executors.newFixedThreadPool(workers);
    try {
      java.util.List<java.util.concurrent.Future<?>> running = new java.util.ArrayList<>();
      for (int w = 0; w < workers; w++) {
        running.add(
            pool.submit(
                () -> {
                  ThreadContext own = ThreadContext.current();
                  for (int i = 0; i < itemsEach; i++) {
                    Object item = queue.get();
                    own.held().reconcileStarted(); // outside the queue's lock, as a reconcile's start is
                    own.held().reconcileEnded();
                    queue.done(item);
                  }
                }));
      }
      for (java.util.concurrent.Future<?> worker : running) {
        worker.get(30, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(value("workqueue_queue_duration_seconds_count{name=\"q\"}")).isEqualTo(workers * itemsEach);
    assertThat(value("workqueue_work_duration_seconds_count{name=\"q\"}")).isEqualTo(workers * itemsEach);
    assertThat(value("workqueue_unfinished_work_seconds{name=\"q\"}")).isZero();
    assertThat(tracker.trackedItems()).isZero();
  }
}
