package dev.resyncmeter.agent.josdk;

import dev.resyncmeter.agent.fabric8.Fabric8Handlers;
import dev.resyncmeter.agent.runtime.AgentMetrics;
import dev.resyncmeter.agent.runtime.Fields;
import dev.resyncmeter.agent.runtime.IdentityWeakMap;
import dev.resyncmeter.agent.runtime.LateStart;
import dev.resyncmeter.agent.runtime.ResourceVersions;
import dev.resyncmeter.agent.runtime.UnitSwitch;
import dev.resyncmeter.collector.ControllerMetrics;
import dev.resyncmeter.collector.PendingEcho;
import dev.resyncmeter.collector.ReconcileResult;
import dev.resyncmeter.collector.ResyncMetrics;
import dev.resyncmeter.collector.ThreadContext;
import dev.resyncmeter.collector.Trigger;
import java.util.ArrayList;
import java.util.List;

/**
 * What the JOSDK advice calls. JOSDK has no queue: events mark a resource's state in the
 * {@code EventProcessor}, which submits one reconcile for all the events marked since the last one.
 * So a trigger is found where the event comes from (a handler call is a {@code change}; a timer task
 * carries the reason it was scheduled for), merged where the event marks the resource's state, and
 * taken where the submission clears the marks; the reconcile that runs for that submission is
 * counted under it. JOSDK calls all of these under its {@code EventProcessor}'s lock. It catches
 * nothing: the advice that calls it suppresses and counts what it throws.
 */
public final class JosdkBridge {

  /** The switch of the part this belongs to. */
  private static final UnitSwitch SWITCH = Josdk.RECONCILER.unitSwitch();
  private static final String CONTROLLER_EVENT_SOURCE = JosdkInstrumentation.PACKAGE + "event.source.controller.ControllerEventSource";

  /**
   * What an enter advice returns when its scope had nothing to restore. It returns null when it opened
   * no scope: as advice whose call failed does.
   */
  private static final Object NOTHING_BEFORE = new Object();

  /** The merged trigger of the events marked on each resource's state since its last submission. */
  private static final IdentityWeakMap<Trigger> PENDING = new IdentityWeakMap<>();
  /** Per resource state: the echoes not settled yet among the events that wait there. */
  private static final IdentityWeakMap<List<PendingEcho>> PENDING_ECHOES = new IdentityWeakMap<>();
  /** Each submitted execution ({@code ReconcilerExecutor}) until it runs. */
  private static final IdentityWeakMap<JosdkThread.Submission> SUBMITTED = new IdentityWeakMap<>();
  /** The reason each timer task was scheduled for. */
  private static final IdentityWeakMap<Trigger> TIMER_REASONS = new IdentityWeakMap<>();

  private JosdkBridge() {}

  private static Object opened(Trigger previous) {
    return previous != null ? previous : NOTHING_BEFORE;
  }

  private static Trigger restored(Object previous) {
    return previous == NOTHING_BEFORE ? null : (Trigger) previous;
  }

  /**
   * The trigger of what the agent did not see made: after an attach, a timer set or an event marked
   * before it ({@code unknown}); otherwise work of the application's ({@code other}).
   */
  private static Trigger unseen() {
    return LateStart.attached() ? Trigger.UNKNOWN : Trigger.OTHER;
  }

  /** JOSDK made the event source that handles its controller's primary resources. */
  public static void controllerEventSourceCreated(Object eventSource, String controllerName) {
    if (SWITCH.on() && controllerName != null) {
      // Every event that passes its filters goes to the EventProcessor, where the agent sees it.
      Fabric8Handlers.named(eventSource, controllerName, true);
    }
  }

  /**
   * After an attach: the controller a {@code ControllerEventSource} made before it belongs to (its
   * constructor, where the agent names it, ran without the agent), or null for any other handler.
   */
  static String controllerOfLateEventSource(Object handler) throws ReflectiveOperationException {
    if (!handler.getClass().getName().equals(CONTROLLER_EVENT_SOURCE)) {
      return null;
    }
    Object controller = Fields.read(handler, "controller");
    java.lang.reflect.Method getConfiguration = controller.getClass().getMethod("getConfiguration");
    getConfiguration.setAccessible(true);
    Object configuration = getConfiguration.invoke(controller);
    // the configuration's class need not be public: its method is made accessible, as a field would be
    java.lang.reflect.Method getName = configuration.getClass().getMethod("getName");
    getName.setAccessible(true);
    return (String) getName.invoke(configuration);
  }

  // ---- where events come from ------------------------------------------------------------------

  /**
   * {@code EventProcessor.handleEvent} starts; returns what {@link #eventHandled} restores. An event
   * made in an informer handler's call takes that call's trigger; without one (the fabric8 unit off),
   * a primary resource's event ({@code resourceEvent}) or a secondary one is a {@code change}; a timer's
   * takes the reason it was scheduled for; any other is {@code other}.
   */
  public static Object eventHandling(boolean resourceEvent) {
    if (!SWITCH.on()) {
      return null;
    }
    ThreadContext context = ThreadContext.current();
    JosdkThread thread = JosdkThread.of(context);
    Trigger previous = thread.event;
    Trigger trigger = context.handlerCall().trigger();
    if (trigger != null) {
      // The handler handed its notification on: for its no-op outcome, it was enqueued.
      context.handlerCall().queueAdded();
    } else if (resourceEvent || thread.propagating) {
      trigger = Trigger.CHANGE;
    } else {
      trigger = thread.firing != null ? thread.firing : Trigger.OTHER;
    }
    thread.event = trigger;
    return opened(previous);
  }

  /** {@code InformerEventSource.propagateEvent} starts or ends: its events are a secondary resource's change. */
  public static void propagating(boolean propagating) {
    if (SWITCH.on() || !propagating) {
      JosdkThread.of(ThreadContext.current()).propagating = propagating;
    }
  }

  public static void eventHandled(Object previous) {
    if (previous != null) {
      JosdkThread.of(ThreadContext.current()).event = restored(previous);
    }
  }

  /**
   * A reschedule, retry or delay is being scheduled by {@code method} of JOSDK's {@code
   * EventProcessor}: for the periodic reconcile, or a requeue. Returns what to restore.
   */
  public static Object schedulingStarting(String method) {
    if (!SWITCH.on()) {
      return null;
    }
    Trigger reason = "scheduleExecutionForMaxReconciliationInterval".equals(method) ? Trigger.PERIODIC : Trigger.REQUEUE;
    JosdkThread thread = JosdkThread.of(ThreadContext.current());
    Trigger previous = thread.scheduling;
    thread.scheduling = reason;
    return opened(previous);
  }

  public static void schedulingFinished(Object previous) {
    if (previous != null) {
      JosdkThread.of(ThreadContext.current()).scheduling = restored(previous);
    }
  }

  /** A timer task was made: it will fire for the reason being scheduled now ({@code other} if none). */
  public static void timerTaskCreated(Object task) {
    if (!SWITCH.on()) {
      return;
    }
    Trigger reason = JosdkThread.of(ThreadContext.current()).scheduling;
    TIMER_REASONS.put(task, reason != null ? reason : Trigger.OTHER);
  }

  /** A timer task runs (on the timer's thread, or inline for an instant reschedule). */
  public static Object timerFiring(Object task) {
    if (!SWITCH.on()) {
      return null;
    }
    JosdkThread thread = JosdkThread.of(ThreadContext.current());
    Trigger previous = thread.firing;
    Trigger reason = TIMER_REASONS.remove(task);
    thread.firing = reason != null ? reason : unseen();
    return opened(previous);
  }

  public static void timerFired(Object previous) {
    if (previous != null) {
      JosdkThread.of(ThreadContext.current()).firing = restored(previous);
    }
  }

  // ---- where events wait and are taken ---------------------------------------------------------

  /**
   * {@code ResourceState.markEventReceived}: an event now waits for the resource's next reconcile. It
   * is the event being handled, or a failed reconcile marking itself for its retry.
   */
  public static void eventMarked(Object resourceState) {
    if (!SWITCH.on()) {
      return;
    }
    JosdkThread thread = JosdkThread.of(ThreadContext.current());
    Trigger trigger = thread.event != null ? thread.event : thread.scheduling != null ? thread.scheduling : Trigger.OTHER;
    PENDING.put(resourceState, Trigger.merge(PENDING.get(resourceState), trigger));
    PendingEcho echo = trigger == Trigger.OWN_WRITE ? ThreadContext.current().handlerCall().pendingEcho() : null;
    if (echo != null) {
      waitingEchoes(resourceState, List.of(echo));
    }
  }

  private static void waitingEchoes(Object resourceState, List<PendingEcho> echoes) {
    List<PendingEcho> waiting = PENDING_ECHOES.get(resourceState);
    if (waiting == null) {
      waiting = new ArrayList<>(echoes.size());
      PENDING_ECHOES.put(resourceState, waiting);
    }
    waiting.addAll(echoes);
  }

  /** {@code ResourceState.unMarkEventReceived}: a reconcile is submitted for the events marked. */
  public static void eventsTaken(Object resourceState) {
    if (!SWITCH.on()) {
      return;
    }
    Trigger taken = PENDING.remove(resourceState);
    JosdkThread thread = JosdkThread.of(ThreadContext.current());
    thread.taken = taken != null ? taken : unseen();
    thread.takenFrom = resourceState;
    thread.takenEchoes = PENDING_ECHOES.isEmpty() ? null : PENDING_ECHOES.remove(resourceState);
  }

  /** The {@code ReconcilerExecutor} made right after the marks were taken carries their trigger. */
  public static void reconcileSubmitted(Object executor) {
    if (!SWITCH.on()) {
      return;
    }
    JosdkThread thread = JosdkThread.of(ThreadContext.current());
    SUBMITTED.put(executor, new JosdkThread.Submission(thread.taken != null ? thread.taken : Trigger.OTHER, thread.takenFrom, thread.takenEchoes));
    thread.taken = null;
    thread.takenFrom = null;
    thread.takenEchoes = null;
  }

  // ---- where reconciles run --------------------------------------------------------------------

  /** {@code ReconcilerExecutor.run()} starts on a reconciler thread. */
  public static void executionStarting(Object executor) {
    if (!SWITCH.on()) {
      return;
    }
    JosdkThread thread = JosdkThread.of(ThreadContext.current());
    thread.running = SUBMITTED.remove(executor);
    if (thread.running == null && LateStart.attached()) {
      // submitted before the attach
      thread.running = new JosdkThread.Submission(Trigger.UNKNOWN, null, null);
    }
    thread.ran = false;
  }

  /** {@code Controller.cleanup} runs: the execution did its work, though it is no reconcile. */
  public static void cleanupRunning() {
    JosdkThread thread = JosdkThread.ifAny(ThreadContext.current());
    if (thread != null) {
      thread.ran = true;
    }
  }

  /**
   * {@code EventProcessor.eventProcessingFinished}, before JOSDK decides what comes next. An execution
   * that called no reconciler (it only added JOSDK's finalizer, then reschedules itself at once)
   * passes its trigger on to the next one: that reconcile does the work the events asked for.
   */
  public static void executionEnding() {
    if (!SWITCH.on()) {
      return;
    }
    JosdkThread thread = JosdkThread.ifAny(ThreadContext.current());
    if (thread == null) {
      return;
    }
    JosdkThread.Submission running = thread.running;
    if (running != null && !thread.ran && running.resourceState() != null) {
      PENDING.put(running.resourceState(), Trigger.merge(PENDING.get(running.resourceState()), running.trigger()));
      if (running.echoes() != null) {
        waitingEchoes(running.resourceState(), running.echoes());
      }
    }
    thread.ran = true;
  }

  public static void executionFinished() {
    ThreadContext context = ThreadContext.current();
    JosdkThread thread = JosdkThread.ifAny(context);
    if (thread != null && thread.awaitedEchoes != null) {
      List<PendingEcho> echoes = thread.awaitedEchoes;
      thread.awaitedEchoes = null;
      long[] requestsByVerb = context.reconcile().overUntold();
      if (thread.reconciled != null) {
        thread.reconciled.reconciledAfterEchoes(echoes, thread.awaitedResult, thread.awaitedNanos, context.reconcile().takeEffect(), requestsByVerb);
        thread.reconciled = null;
      }
    }
    context.reconcile().over();
    if (thread != null) {
      thread.running = null;
      if (thread.reconciled != null) {
        thread.reconciled.reconcileEffect(context.lastRow(), thread.reconciledTrigger, context.reconcile().takeEffect());
        thread.reconciled = null;
      }
    }
  }

  /**
   * {@code Controller.reconcile} starts: the clock, or 0 when the unit is off. From here to the end of
   * the execution (the reconciler's own calls, then JOSDK's patches of what it returned) API requests
   * on this thread count under the execution's trigger. The version of {@code resource} (the primary
   * resource) is the version before of a write whose own is not known: JOSDK's JSON patch of the
   * status is computed against a copy whose version it cleared.
   */
  public static long reconcileStarting(String controllerName, Object resource) throws ReflectiveOperationException {
    ResyncMetrics metrics = AgentMetrics.whenOn(SWITCH);
    if (metrics == null || controllerName == null) {
      return 0;
    }
    ThreadContext context = ThreadContext.current();
    JosdkThread thread = JosdkThread.ifAny(context);
    JosdkThread.Submission running = thread != null ? thread.running : null;
    List<PendingEcho> awaited = running != null && running.trigger() == Trigger.OWN_WRITE ? PendingEcho.unsettled(running.echoes()) : null;
    if (awaited != null) {
      // echoes whose writes are still unanswered: the reconcile counts when they are told
      thread.awaitedEchoes = awaited;
      context.reconcile().beganUntriggered(metrics.controller(controllerName));
    } else {
      context.reconcile().began(metrics.controller(controllerName), running != null ? PendingEcho.settled(running.trigger(), running.echoes()) : Trigger.OTHER);
    }
    // read now: JOSDK clears the resource's version while it patches its status
    context.reconcile().handedVersion(ResourceVersions.of(resource));
    return System.nanoTime();
  }

  /**
   * {@code Controller.reconcile} returned ({@code rescheduled}: it asked for a reschedule) or threw;
   * it counts under the controller and trigger its start found. Outside a submitted execution
   * (application code calling it) the trigger is {@code other}.
   */
  public static void reconcileFinished(long startedAt, boolean rescheduled, Throwable thrown) {
    if (startedAt == 0 || !SWITCH.on()) {
      return;
    }
    long took = System.nanoTime() - startedAt;
    ThreadContext context = ThreadContext.current();
    ControllerMetrics controller = context.reconcile().controller();
    Trigger trigger = context.reconcile().trigger();
    JosdkThread thread = JosdkThread.ifAny(context);
    JosdkThread execution = thread != null && thread.running != null ? thread : null;
    if (execution == null) {
      context.reconcile().over(); // application code called it: no execution of JOSDK's follows
    }
    ReconcileResult result = thrown != null ? ReconcileResult.ERROR : rescheduled ? ReconcileResult.REQUEUE : ReconcileResult.SUCCESS;
    if (execution != null && execution.awaitedEchoes != null && controller != null) {
      // counted with its effect when the execution ends, under the trigger its echoes tell
      execution.ran = true;
      execution.reconciled = controller;
      execution.awaitedResult = result;
      execution.awaitedNanos = took;
      return;
    }
    if (controller == null || trigger == null) {
      return;
    }
    if (execution != null) {
      execution.ran = true;
    }
    controller.reconciled(context.lastRow(), trigger, result, took);
    if (execution != null) {
      // its effect is known when the execution ends, after JOSDK's own writes for it
      execution.reconciled = controller;
      execution.reconciledTrigger = trigger;
    } else {
      controller.reconcileEffect(context.lastRow(), trigger, context.reconcile().takeEffect());
    }
  }
}
