package dev.resyncmeter.agent.josdk;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resyncmeter.agent.runtime.TestCollector;
import dev.resyncmeter.collector.ResyncMetrics;
import dev.resyncmeter.collector.ThreadContext;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The trigger of a JOSDK reconcile, followed through the calls JOSDK makes (here made by hand, in
 * JOSDK's order, with plain objects standing for its resource states, executors and timer tasks):
 * where an event comes from, where it waits, where a reconcile takes it.
 */
class JosdkBridgeTest {

  private ResyncMetrics metrics;

  @BeforeEach
  void install() throws Exception {
    metrics = TestCollector.install();
  }

  @AfterEach
  void uninstall() throws Exception {
    TestCollector.uninstall();
  }

  @Test
  void anEventFromAnInformerHandlersCallIsAChangeAndCountsAsEnqueuedForTheHandler() throws Exception {
    Object state = new Object();
    ThreadContext context = ThreadContext.current();
    context.handlerCall().begin();
    Object executor = handleEvent(state, false);
    assertThat(context.handlerCall().end()).as("queue adds the handler call saw").isEqualTo(1);

    reconcile(executor, false, null);

    assertThat(reconciles()).containsExactly(Map.entry("change/success", 1L));
  }

  @Test
  void aPrimaryOrSecondaryResourcesEventIsAChangeEvenWithoutAHandlerCall() throws Exception {
    reconcile(handleEvent(new Object(), true), false, null);
    JosdkBridge.propagating(true);
    Object secondary = handleEvent(new Object(), false);
    JosdkBridge.propagating(false);
    reconcile(secondary, false, null);

    assertThat(reconciles()).containsExactly(Map.entry("change/success", 2L));
  }

  @Test
  void aTimerFiresWithTheReasonItWasScheduledFor() throws Exception {
    Object periodic = scheduleTimer("scheduleExecutionForMaxReconciliationInterval");
    Object rescheduled = scheduleTimer("reScheduleExecutionIfInstructed");
    Object byTheApplication = scheduleTimer(null);

    reconcile(fire(rescheduled, new Object()), true, null);
    reconcile(fire(periodic, new Object()), false, null);
    reconcile(fire(byTheApplication, new Object()), false, new IllegalStateException("failed"));

    assertThat(reconciles())
        .containsExactly(Map.entry("other/error", 1L), Map.entry("periodic/success", 1L), Map.entry("requeue/requeue", 1L));
  }

  @Test
  void eventsThatArriveWhileAReconcileRunsMergeIntoTheNextOneStrongestFirst() throws Exception {
    Object state = new Object();
    Object first = handleEvent(state, true);
    JosdkBridge.executionStarting(first);
    // while it runs: the timer fires for the resource, then a change arrives; JOSDK only marks them
    Object timer = scheduleTimer("scheduleExecutionForMaxReconciliationInterval");
    markOnly(timer, state);
    markOnly(null, state);
    finishReconcile(false, null);

    Object next = submit(state);
    reconcile(next, false, null);

    assertThat(reconciles()).containsExactly(Map.entry("change/success", 2L));
  }

  @Test
  void aRetryWaitsAsARequeueAndAnEventAfterTheSubmissionStartsAFreshSet() throws Exception {
    Object state = new Object();
    Object failing = handleEvent(state, true);
    JosdkBridge.executionStarting(failing);
    long startedAt = JosdkBridge.reconcileStarting("op", null);
    JosdkBridge.reconcileFinished(startedAt, false, new IllegalStateException("failed"));
    // eventProcessingFinished -> handleRetryOnException: the state marks itself and a timer is set
    JosdkBridge.executionEnding();
    Object outer = JosdkBridge.schedulingStarting("handleRetryOnException");
    JosdkBridge.eventMarked(state);
    Object retryTimer = new Object();
    JosdkBridge.timerTaskCreated(retryTimer);
    JosdkBridge.schedulingFinished(outer);
    JosdkBridge.executionFinished();

    reconcile(fire(retryTimer, state), false, null);

    assertThat(reconciles()).containsExactly(Map.entry("change/error", 1L), Map.entry("requeue/success", 1L));
  }

  @Test
  void anExecutionThatCallsNoReconcilerPassesItsTriggerOn() throws Exception {
    // JOSDK's first execution of a resource with a Cleaner only adds its finalizer, then reschedules at once
    Object state = new Object();
    Object addsFinalizer = handleEvent(state, true);
    JosdkBridge.executionStarting(addsFinalizer);
    JosdkBridge.executionEnding();
    Object outer = JosdkBridge.schedulingStarting("reScheduleExecutionIfInstructed");
    Object instant = new Object();
    JosdkBridge.timerTaskCreated(instant);
    Object next = fire(instant, state);
    JosdkBridge.schedulingFinished(outer);
    JosdkBridge.executionFinished();

    reconcile(next, false, null);

    assertThat(reconciles()).containsExactly(Map.entry("change/success", 1L));
  }

  // ---- JOSDK's calls, in its order --------------------------------------------------------------

  /** EventProcessor.handleEvent: marks the resource's state and submits a reconcile at once. */
  private static Object handleEvent(Object state, boolean resourceEvent) throws Exception {
    Object previous = JosdkBridge.eventHandling(resourceEvent);
    JosdkBridge.eventMarked(state);
    Object executor = submit(state);
    JosdkBridge.eventHandled(previous);
    return executor;
  }

  /** An event of a timer task that only marks the state (its resource's reconcile is running). */
  private static void markOnly(Object task, Object state) throws Exception {
    Object firing = task == null ? null : JosdkBridge.timerFiring(task);
    Object previous = JosdkBridge.eventHandling(task == null);
    JosdkBridge.eventMarked(state);
    JosdkBridge.eventHandled(previous);
    if (task != null) {
      JosdkBridge.timerFired(firing);
    }
  }

  private static Object submit(Object state) throws Exception {
    JosdkBridge.eventsTaken(state);
    Object executor = new Object();
    JosdkBridge.reconcileSubmitted(executor);
    return executor;
  }

  /** A timer task scheduled by {@code method} of JOSDK's {@code EventProcessor}, or by none (null). */
  private static Object scheduleTimer(String method) throws Exception {
    Object previous = method == null ? null : JosdkBridge.schedulingStarting(method);
    Object task = new Object();
    JosdkBridge.timerTaskCreated(task);
    if (method != null) {
      JosdkBridge.schedulingFinished(previous);
    }
    return task;
  }

  private static Object fire(Object task, Object state) throws Exception {
    Object previous = JosdkBridge.timerFiring(task);
    Object executor = handleEvent(state, false);
    JosdkBridge.timerFired(previous);
    return executor;
  }

  /** ReconcilerExecutor.run: Controller.reconcile, then eventProcessingFinished. */
  private static void reconcile(Object executor, boolean rescheduled, Throwable thrown) throws Exception {
    JosdkBridge.executionStarting(executor);
    finishReconcile(rescheduled, thrown);
  }

  private static void finishReconcile(boolean rescheduled, Throwable thrown) throws Exception {
    long startedAt = JosdkBridge.reconcileStarting("op", null);
    JosdkBridge.reconcileFinished(startedAt, rescheduled, thrown);
    JosdkBridge.executionEnding();
    JosdkBridge.executionFinished();
  }

  /** {@code controller_reconcile_total{controller="op"}} as trigger/result to count. */
  private Map<String, Long> reconciles() {
    Map<String, Long> counts = new TreeMap<>();
    for (String line : metrics.scrape("text/plain").body().split("\n")) {
      if (line.startsWith("controller_reconcile_total{controller=\"op\"")) {
        String result = line.replaceAll(".*result=\"([^\"]+)\".*", "$1");
        String trigger = line.replaceAll(".*trigger=\"([^\"]+)\".*", "$1");
        counts.put(trigger + "/" + result, (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)));
      }
    }
    return counts;
  }
}
