package dev.resyncmeter.examples.scenario;

import static dev.resyncmeter.examples.truth.Truth.series;

import io.kubernetes.client.extended.controller.Controller;
import io.kubernetes.client.extended.controller.ControllerManager;
import io.kubernetes.client.extended.controller.builder.ControllerBuilder;
import io.kubernetes.client.extended.controller.reconciler.Result;
import io.kubernetes.client.extended.workqueue.DefaultDelayingQueue;
import io.kubernetes.client.extended.workqueue.DefaultRateLimitingQueue;
import io.kubernetes.client.extended.workqueue.RateLimitingQueue;
import io.kubernetes.client.extended.workqueue.ratelimiter.RateLimiter;
import io.kubernetes.client.informer.ListerWatcher;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapList;
import io.kubernetes.client.openapi.models.V1ListMeta;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Status;
import io.kubernetes.client.util.CallGeneratorParams;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.Watch;
import io.kubernetes.client.util.Watchable;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * A churn for the memory test: many distinct queue keys and many informer objects through the real
 * client-java classes, with the used heap measured after a warm-up (the baseline) and at the end.
 * The memory test runs it with and without the agent and compares the two; the agent's share must
 * not grow with the keys or objects seen.
 *
 * <ul>
 *   <li>A rate-limiting queue takes {@code keys} distinct keys (add, get, done); a worker requeues
 *       every tenth one with {@code addAfter(1 ms)}, every tenth with {@code addRateLimited} and every
 *       tenth with {@code addAfter(0)}. At most 500 keys are in flight, so the queue's delayed-add
 *       buffer (1000) never refuses one of these.
 *   <li>A delaying queue whose delaying thread never runs takes {@code keys / 10} delayed adds: the
 *       first 1000 fill its buffer, the rest are refused; then it shuts down and takes as many more,
 *       which it drops.
 *   <li>A controller's informer lists {@code objects} ConfigMaps from an in-process lister, replays
 *       its cache once (a resync) and lists again after an expired watch (a relist).
 * </ul>
 *
 * <p>Prints {@code heap baseline <bytes>}, {@code heap final <bytes>}, its {@code truth} lines and
 * {@code SCENARIO DONE}, then waits for its standard input to close so the test can scrape.
 */
public final class MemoryScenario {

  static final String CONTROLLER = "memory-controller";
  static final String CHURN_QUEUE = "MemoryScenario$Churn";
  static final String STALLED_QUEUE = "MemoryScenario$Stalled";
  static final int WARM_UP_OBJECTS = 1_000;
  static final int WARM_UP_KEYS = 10_000;
  static final int IN_FLIGHT = 500;
  static final Duration WAIT = Duration.ofSeconds(120);

  private final GroundTruth truth = new GroundTruth();

  public static void main(String[] args) throws Exception {
    int keys = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    int objects = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
    new MemoryScenario().run(keys, objects);
    System.exit(0);
  }

  void run(int keys, int objects) throws Exception {
    InProcessLister lister = new InProcessLister(WARM_UP_OBJECTS);
    ResyncScenario.ScenarioInformerFactory factory =
        new ResyncScenario.ScenarioInformerFactory(new ClientBuilder().setBasePath("http://127.0.0.1:1").setReadTimeout(Duration.ZERO).build());
    ObservedInformer informer = ObservedInformer.create(lister, 0);
    factory.register(V1ConfigMap.class, informer);
    Watched watched = new Watched(factory);
    ControllerManager manager = new ControllerManager(factory, watched.controller);
    Executors.newSingleThreadExecutor(MemoryScenario::daemon).submit(manager::run);
    Churn churn = new Churn();
    Stalled stalled = new Stalled();

    // Warm-up: every path and every series once, so the baseline holds the agent's fixed state.
    await("the first list", () -> watched.adds.get() == WARM_UP_OBJECTS);
    watched.awaitIdle();
    informer.replayCache();
    await("the warm-up resync", () -> watched.resyncs.get() == WARM_UP_OBJECTS);
    watched.awaitIdle();
    lister.expireWatch();
    await("the warm-up relist", () -> watched.relists.get() == WARM_UP_OBJECTS);
    watched.awaitIdle();
    churn.churn("w-", WARM_UP_KEYS);
    stalled.addAfter("s-", 10);
    System.out.println("heap baseline " + usedHeapAfterGc());

    churn.churn("k-", keys);
    stalled.addAfter("s-", keys / 20);
    stalled.queue.shutDown();
    stalled.addAfter("t-", keys / 20);
    lister.size = objects;
    lister.expireWatch();
    await("the relist of every object", () -> watched.adds.get() == objects && watched.relists.get() == 2L * WARM_UP_OBJECTS);
    watched.awaitIdle();
    informer.replayCache();
    await("the resync of every object", () -> watched.resyncs.get() == WARM_UP_OBJECTS + objects);
    watched.awaitIdle();
    lister.expireWatch();
    await("the second relist of every object", () -> watched.relists.get() == 2L * WARM_UP_OBJECTS + objects);
    watched.awaitIdle();
    System.out.println("heap final " + usedHeapAfterGc());

    churn.report();
    stalled.report();
    watched.report();
    truth.set(series("informer_resyncs_total", "kind", "ConfigMap"), informer.resyncTicks());
    truth.set("relists_of{kind=\"ConfigMap\"}", informer.lists() - 1);
    System.out.print(truth.render());
    System.out.println("SCENARIO DONE");
    System.out.flush();
    while (System.in.read() >= 0) {
      // the test scrapes, then closes our input
    }
    manager.shutdown();
    churn.queue.shutDown();
  }

  /**
   * Used heap after full collections, the lowest of five: with the serial collector a full
   * collection leaves exactly the live objects. The pauses let the agent's cleaner thread drop the
   * entries of keys the collection cleared.
   */
  static long usedHeapAfterGc() throws InterruptedException {
    long lowest = Long.MAX_VALUE;
    for (int i = 0; i < 5; i++) {
      System.gc();
      Thread.sleep(200);
      System.gc();
      lowest = Math.min(lowest, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
    }
    return lowest;
  }

  // ---- the churn queue -------------------------------------------------------------------------

  /** Distinct keys through a rate-limiting queue with two workers; named after this class by the agent. */
  private final class Churn {
    final RateLimitingQueue<String> queue = new DefaultRateLimitingQueue<>(Executors.newSingleThreadExecutor(MemoryScenario::daemon), new FixedDelay());
    final Map<String, Boolean> requeued = new ConcurrentHashMap<>();
    final Semaphore inFlight = new Semaphore(IN_FLIGHT);
    final AtomicLong adds = new AtomicLong();
    final AtomicLong gets = new AtomicLong();
    final AtomicLong requeues = new AtomicLong();
    final AtomicLong rateLimited = new AtomicLong();

    Churn() {
      for (int i = 0; i < 2; i++) {
        Thread worker = new Thread(this::work, "churn-worker-" + i);
        worker.setDaemon(true);
        worker.start();
      }
    }

    void churn(String prefix, int keys) throws InterruptedException {
      for (int i = 0; i < keys; i++) {
        if (!inFlight.tryAcquire(WAIT.toSeconds(), TimeUnit.SECONDS)) {
          throw new IllegalStateException("the churn workers stopped at key " + i);
        }
        adds.incrementAndGet();
        queue.add(prefix + i);
      }
      if (!inFlight.tryAcquire(IN_FLIGHT, WAIT.toSeconds(), TimeUnit.SECONDS)) {
        throw new IllegalStateException("the churn did not finish");
      }
      inFlight.release(IN_FLIGHT);
    }

    private void work() {
      try {
        while (true) {
          String key = queue.get();
          if (key == null) {
            return;
          }
          gets.incrementAndGet();
          boolean second = requeued.remove(key) != null;
          int kind = second ? 0 : Integer.parseInt(key, key.indexOf('-') + 1, key.length(), 10) % 10;
          if (kind >= 1 && kind <= 3) {
            requeued.put(key, Boolean.TRUE);
            requeues.incrementAndGet();
            if (kind == 1) {
              queue.addAfter(key, Duration.ofMillis(1));
            } else if (kind == 2) {
              rateLimited.incrementAndGet();
              queue.addRateLimited(key);
            } else {
              queue.addAfter(key, Duration.ZERO);
            }
          } else {
            inFlight.release();
          }
          queue.done(key);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    void report() {
      truth.set(series("workqueue_trigger_adds_total", "name", CHURN_QUEUE, "trigger", "other"), adds.get());
      truth.set(series("workqueue_trigger_adds_total", "name", CHURN_QUEUE, "trigger", "requeue"), requeues.get());
      truth.set(series("workqueue_retries_total", "name", CHURN_QUEUE), rateLimited.get());
      // Every add that was not deduplicated is taken exactly once; none was deduplicated here.
      truth.set(series("workqueue_adds_total", "name", CHURN_QUEUE), gets.get());
    }
  }

  /** Requeues after a millisecond, and keeps nothing per key. */
  private static final class FixedDelay implements RateLimiter<String> {
    @Override
    public Duration when(String item) {
      return Duration.ofMillis(1);
    }

    @Override
    public void forget(String item) {
      // nothing kept
    }

    @Override
    public int numRequeues(String item) {
      return 0;
    }
  }

  // ---- the stalled delaying queue --------------------------------------------------------------

  /** A delaying queue whose delaying thread never runs: delayed adds fill its buffer, then bounce. */
  private final class Stalled {
    final CountDownLatch never = new CountDownLatch(1);
    final DefaultDelayingQueue<String> queue;
    final AtomicLong addCalls = new AtomicLong();

    Stalled() {
      ExecutorService delaying = Executors.newSingleThreadExecutor(MemoryScenario::daemon);
      delaying.submit(
          () -> {
            never.await();
            return null;
          });
      queue = new DefaultDelayingQueue<>(delaying);
    }

    void addAfter(String prefix, int keys) {
      for (int i = 0; i < keys; i++) {
        addCalls.incrementAndGet();
        queue.addAfter(prefix + i, Duration.ofHours(1));
      }
    }

    void report() {
      truth.set(series("workqueue_trigger_adds_total", "name", STALLED_QUEUE, "trigger", "other"), addCalls.get());
      truth.set(series("workqueue_adds_total", "name", STALLED_QUEUE), 0);
    }
  }

  // ---- the controller and its informer ---------------------------------------------------------

  /** A controller whose filters and reconciler count what they see. */
  private final class Watched {
    final RateLimitingQueue<io.kubernetes.client.extended.controller.reconciler.Request> queue =
        new DefaultRateLimitingQueue<>(Executors.newSingleThreadExecutor(MemoryScenario::daemon));
    final AtomicLong adds = new AtomicLong();
    final AtomicLong resyncs = new AtomicLong();
    final AtomicLong relists = new AtomicLong();
    final AtomicLong reconciles = new AtomicLong();
    final AtomicInteger reconciling = new AtomicInteger();
    final Controller controller;

    Watched(ResyncScenario.ScenarioInformerFactory factory) {
      controller =
          ControllerBuilder.defaultBuilder(factory)
              .withWorkQueue(queue)
              .watch(
                  q ->
                      ControllerBuilder.controllerWatchBuilder(V1ConfigMap.class, q)
                          .withOnAddFilter(
                              object -> {
                                adds.incrementAndGet();
                                return true;
                              })
                          .withOnUpdateFilter(
                              (oldObject, newObject) -> {
                                // Every update here has an unchanged version: the same instance is a resync.
                                (oldObject == newObject ? resyncs : relists).incrementAndGet();
                                return true;
                              })
                          .build())
              .withReconciler(
                  request -> {
                    reconciling.incrementAndGet();
                    reconciles.incrementAndGet();
                    reconciling.decrementAndGet();
                    return new Result(false);
                  })
              .withWorkerCount(2)
              .withName(CONTROLLER)
              .build();
    }

    /** The queue empty and no reconcile running, for a little while. */
    void awaitIdle() throws InterruptedException {
      long deadline = System.nanoTime() + WAIT.toNanos();
      int quiet = 0;
      while (quiet < 6) {
        quiet = queue.length() == 0 && reconciling.get() == 0 ? quiet + 1 : 0;
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the controller did not become idle");
        }
        Thread.sleep(50);
      }
    }

    void report() {
      String kind = "ConfigMap";
      truth.set(series("informer_notifications_total", "kind", kind, "handler", CONTROLLER, "type", "add"), adds.get());
      truth.set(series("informer_notifications_total", "kind", kind, "handler", CONTROLLER, "type", "update"), resyncs.get() + relists.get());
      truth.set(series("informer_updates_total", "kind", kind, "handler", CONTROLLER, "cause", "resync", "resource_version", "unchanged"), resyncs.get());
      truth.set(series("informer_updates_total", "kind", kind, "handler", CONTROLLER, "cause", "relist", "resource_version", "unchanged"), relists.get());
      truth.set(series("informer_noop_updates_total", "kind", kind, "handler", CONTROLLER, "cause", "resync", "outcome", "enqueued"), resyncs.get());
      truth.set(series("informer_noop_updates_total", "kind", kind, "handler", CONTROLLER, "cause", "relist", "outcome", "enqueued"), relists.get());
      truth.set(series("workqueue_trigger_adds_total", "name", CONTROLLER, "trigger", "change"), adds.get());
      truth.set(series("workqueue_trigger_adds_total", "name", CONTROLLER, "trigger", "resync_noop"), resyncs.get());
      truth.set(series("workqueue_trigger_adds_total", "name", CONTROLLER, "trigger", "relist_noop"), relists.get());
      truth.set("reconciles_of{controller=\"" + CONTROLLER + "\"}", reconciles.get());
    }
  }

  /**
   * Lists {@code size} ConfigMaps, fresh instances on every list, all at resource version 1: a relist
   * changes nothing. Its watch sends nothing until {@link #expireWatch} makes it answer 410 Gone.
   */
  static final class InProcessLister implements ListerWatcher<V1ConfigMap, V1ConfigMapList> {
    volatile int size;
    private volatile InProcessWatch current;

    InProcessLister(int size) {
      this.size = size;
    }

    @Override
    public V1ConfigMapList list(CallGeneratorParams params) {
      List<V1ConfigMap> items = new ArrayList<>(size);
      for (int i = 0; i < size; i++) {
        items.add(new V1ConfigMap().metadata(new V1ObjectMeta().namespace("default").name("cm-" + i).resourceVersion("1")));
      }
      return new V1ConfigMapList().metadata(new V1ListMeta().resourceVersion("1")).items(items);
    }

    @Override
    public Watchable<V1ConfigMap> watch(CallGeneratorParams params) {
      InProcessWatch watch = new InProcessWatch();
      current = watch;
      return watch;
    }

    /** The open watch ends with 410 Gone, as when the server compacted past its version. */
    void expireWatch() throws InterruptedException {
      await("an open watch", () -> current != null);
      InProcessWatch watch = current;
      current = null;
      watch.events.add(new Watch.Response<>("ERROR", new V1Status().code(410).reason("Expired").message("too old resource version")));
    }
  }

  /** A watch that blocks until an event is queued or it is closed. */
  static final class InProcessWatch implements Watchable<V1ConfigMap> {
    private static final Watch.Response<V1ConfigMap> CLOSED = new Watch.Response<>("CLOSED", (V1ConfigMap) null);
    final BlockingQueue<Watch.Response<V1ConfigMap>> events = new LinkedBlockingQueue<>();
    private Watch.Response<V1ConfigMap> next;

    @Override
    public boolean hasNext() {
      if (next == null) {
        try {
          next = events.take();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
      return next != CLOSED;
    }

    @Override
    public Watch.Response<V1ConfigMap> next() {
      Watch.Response<V1ConfigMap> event = next;
      next = null;
      return event;
    }

    @Override
    public Iterator<Watch.Response<V1ConfigMap>> iterator() {
      return this;
    }

    @Override
    public void close() {
      events.add(CLOSED);
    }
  }

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("timed out waiting for " + what);
      }
      Thread.sleep(10);
    }
  }

  private static Thread daemon(Runnable runnable) {
    Thread thread = new Thread(runnable, "memory-scenario");
    thread.setDaemon(true);
    return thread;
  }

  static {
    // The scenario's own log stays quiet; the test reads its standard output.
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
  }
}
