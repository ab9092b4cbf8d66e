package dev.resyncmeter.agent.clientjava;

import dev.resyncmeter.agent.runtime.AgentMetrics;
import dev.resyncmeter.agent.runtime.ApiRequests;
import dev.resyncmeter.agent.runtime.Fields;
import dev.resyncmeter.agent.runtime.IdentityWeakMap;
import dev.resyncmeter.agent.runtime.UnitSwitch;
import dev.resyncmeter.collector.ControllerMetrics;
import dev.resyncmeter.collector.ReconcileResult;
import dev.resyncmeter.collector.ResyncMetrics;
import dev.resyncmeter.collector.ThreadContext;
import java.lang.management.LockInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.lang.ref.WeakReference;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Controllers built before the agent was attached. No object of theirs is within reach: a controller
 * is known only by its workers, which wait for work inside its queue's {@code get()} and are named
 * {@code <controller>-<n>} by client-java's controller builder. So the name of a queue's controller
 * is read from a thread that waits on that very queue inside {@code DefaultController.worker}.
 */
public final class LateControllers {

  private static final String DEFAULT_CONTROLLER = "io.kubernetes.client.extended.controller.DefaultController";
  private static final String CONTROLLER_WATCH_HANDLER = "io.kubernetes.client.extended.controller.DefaultControllerWatch$";
  private static final Pattern WORKER_NAME = Pattern.compile("(.+)-\\d+");
  /** How deep a waiting worker's stack is read: get and wait on top, worker below. */
  private static final int STACK_DEPTH = 12;
  /** Threads are looked at again for a queue no sooner than this after the last look found nothing. */
  private static final long RETRY_NANOS = 1_000_000_000L;

  /** The reconciles of each queue whose controller was found this way: the agent times them from get to done. */
  private static final IdentityWeakMap<ControllerMetrics> RECONCILES_OF_QUEUE = new IdentityWeakMap<>();
  private static final IdentityWeakMap<Long> LAST_LOOK = new IdentityWeakMap<>();
  /**
   * The workers found waiting in a queue, by thread id, with that queue: a get() they entered before
   * the attach runs without advice, so the take it ends with is not seen, and the worker is known only
   * by its thread until the done of that item.
   */
  private static final Map<Long, WeakReference<Object>> WAITING_UNSEEN = new ConcurrentHashMap<>();

  private LateControllers() {}

  /**
   * The name of the controller built before the attach whose workers take from {@code queue}, or
   * null when no worker waits on it now (all of them busy, or it is no controller's queue).
   */
  static synchronized String nameOf(Object queue) {
    Long lastLook = LAST_LOOK.get(queue);
    long now = System.nanoTime();
    if (lastLook != null && now - lastLook < RETRY_NANOS) {
      return null;
    }
    LAST_LOOK.put(queue, now);
    Set<Long> waiting = new HashSet<>();
    String name = nameOfWorkersWaitingOn(queue, waiting);
    ResyncMetrics metrics = AgentMetrics.get();
    if (name != null && metrics != null) {
      WeakReference<Object> waitedOn = new WeakReference<>(queue);
      // those workers' requests, until the done of the item they take, belong to that item's reconcile
      ApiRequests.whenSentOutsideReconcile(LateControllers::requestOutsideReconcile);
      for (Long thread : waiting) {
        WAITING_UNSEEN.put(thread, waitedOn);
      }
      LAST_LOOK.remove(queue);
      RECONCILES_OF_QUEUE.put(queue, metrics.controller(name));
    }
    return name;
  }

  /** The controller's name, from the workers waiting on {@code queue}, whose thread ids go to {@code waiting}. */
  private static String nameOfWorkersWaitingOn(Object queue, Set<Long> waiting) {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    int identity = System.identityHashCode(queue);
    String type = queue.getClass().getName();
    String name = null;
    for (ThreadInfo thread : threads.getThreadInfo(threads.getAllThreadIds(), STACK_DEPTH)) {
      LockInfo lock = thread == null ? null : thread.getLockInfo();
      if (lock == null || lock.getIdentityHashCode() != identity || !lock.getClassName().equals(type) || !inWorkerLoop(thread)) {
        continue;
      }
      waiting.add(thread.getThreadId());
      Matcher worker = WORKER_NAME.matcher(thread.getThreadName());
      if (name == null && worker.matches()) {
        name = worker.group(1);
      }
    }
    return name;
  }

  /**
   * Whether this thread is a worker of {@code queue} that was found waiting in a get() it entered
   * before the attach, and has not been seen taking an item since. It stops being one here.
   */
  public static boolean tookUnseen(Object queue) {
    if (WAITING_UNSEEN.isEmpty()) {
      return false;
    }
    Long thread = Thread.currentThread().getId();
    WeakReference<Object> waitedOn = WAITING_UNSEEN.get(thread);
    return waitedOn != null && waitedOn.get() == queue && WAITING_UNSEEN.remove(thread, waitedOn);
  }

  /**
   * An API request is sent on this thread outside any reconcile the agent knows of. When the thread
   * is a worker that took its item unseen, it sends it for that item's reconcile: the reconcile is
   * marked running on the thread, and its requests wait for the trigger its done will tell.
   */
  public static void requestOutsideReconcile(ThreadContext context) {
    WeakReference<Object> waitedOn = WAITING_UNSEEN.isEmpty() ? null : WAITING_UNSEEN.get(Thread.currentThread().getId());
    ControllerMetrics reconciles = waitedOn == null ? null : reconcilesOf(waitedOn.get());
    if (reconciles != null) {
      context.reconcile().beganUntriggered(reconciles);
    }
  }

  private static boolean inWorkerLoop(ThreadInfo thread) {
    for (StackTraceElement frame : thread.getStackTrace()) {
      if (frame.getClassName().equals(DEFAULT_CONTROLLER) && frame.getMethodName().equals("worker")) {
        return true;
      }
    }
    return false;
  }

  /** The controller's meters for a queue whose controller was found here, or null. */
  public static ControllerMetrics reconcilesOf(Object queue) {
    return RECONCILES_OF_QUEUE.isEmpty() ? null : RECONCILES_OF_QUEUE.get(queue);
  }

  /**
   * A worker took an item from {@code queue}. For a controller built before the attach, whose
   * reconciler the agent could not wrap, that starts the reconcile: the API requests the worker sends
   * until the done of the item count under it, as those a wrapped reconciler sends.
   */
  public static void workTaken(Object queue, ThreadContext context) {
    ControllerMetrics reconciles = reconcilesOf(queue);
    UnitSwitch unit = ClientJava.CONTROLLER.unitSwitch();
    if (reconciles != null && unit.on()) {
      context.reconcile().began(reconciles, context.held().trigger());
    }
  }

  /**
   * A worker is done with the item it took from {@code queue}. For a controller built before the
   * attach, whose reconciler the agent could not wrap, that ends the reconcile: it ran from get to done.
   */
  public static void workDone(Object queue, ThreadContext context) {
    ControllerMetrics reconciles = reconcilesOf(queue);
    UnitSwitch unit = ClientJava.CONTROLLER.unitSwitch();
    if (reconciles == null) {
      return;
    }
    // first: whatever happens below, no later request of this thread counts under this reconcile
    context.reconcile().over(context.held().trigger());
    if (!unit.on()) {
      return;
    }
    ReconcileResult result =
        context.held().reconcileFailed() ? ReconcileResult.ERROR : context.held().requeued() ? ReconcileResult.REQUEUE : ReconcileResult.SUCCESS;
    reconciles.reconciled(context.lastRow(), context.held().trigger(), result, System.nanoTime() - context.held().since());
    reconciles.reconcileEffect(context.lastRow(), context.held().trigger(), context.reconcile().takeEffect());
  }

  /**
   * The queue a controller watch's handler adds to, when the handler is the anonymous class that
   * {@code DefaultControllerWatch.getResourceEventHandler()} returns; else null.
   */
  static Object queueOfWatchHandler(Object handler) throws ReflectiveOperationException {
    if (!handler.getClass().getName().startsWith(CONTROLLER_WATCH_HANDLER)) {
      return null;
    }
    return Fields.read(Fields.read(handler, "this$0"), "workQueue");
  }
}
