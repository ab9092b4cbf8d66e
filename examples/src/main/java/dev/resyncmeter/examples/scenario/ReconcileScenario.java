package dev.resyncmeter.examples.scenario;

import static dev.resyncmeter.examples.truth.Truth.series;

import dev.resyncmeter.examples.apiserver.EmbeddedApiServer;
import io.kubernetes.client.extended.controller.Controller;
import io.kubernetes.client.extended.controller.ControllerManager;
import io.kubernetes.client.extended.controller.builder.ControllerBuilder;
import io.kubernetes.client.extended.controller.reconciler.Request;
import io.kubernetes.client.extended.controller.reconciler.Result;
import io.kubernetes.client.extended.workqueue.DefaultRateLimitingQueue;
import io.kubernetes.client.extended.workqueue.RateLimitingQueue;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapList;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * Reconciles with a ground truth known by construction, for the end-to-end tests of reconcile
 * attribution. The informers run with resync off and the scenario replays their caches itself, so it
 * decides when a resync happens; every step waits until the queues are idle, so no trigger of one
 * step merges into another's, and each reconcile's trigger is the step's.
 *
 * <p>{@code phases}: an enqueuing and a filtering controller through initial adds, resyncs, real
 * changes, a relist, a reconciler that requeues, one that throws (an unchecked, then a checked
 * exception), a handler that throws on every call, and a slow reconciler that holds its
 * worker until a line arrives on standard input (so the test can watch the in-flight gauges).
 * {@code attach}: the same controllers, counted only from the moment the agent was attached to them.
 * {@code api-requests}: the same steps with reconcilers that read their object from the API server on
 * every reconcile and make every kind of write in turn (updates, merge patches, creates and deletes
 * that change something, change nothing, or are refused), and one read that cannot connect; it prints
 * the requests the server answered and those that failed, what the reconciler saw of the failure,
 * what each kind of write got, and the HTTP client's configuration, so a run with the agent can be
 * compared with one without. Every reconcile counts its effect (none, unchanged, changed) under its
 * trigger; in the other modes a reconcile without API requests has the effect none.
 * {@code stress}: 4 informers, 4 controllers with 4 workers each, 100,000 resync handler calls, with
 * the locks held in the application's handler and reconciler code sampled.
 */
public final class ReconcileScenario {

  static final String EVERY_UPDATE = "phased-every-update";
  static final String RV_FILTER = "phased-rv-filter";
  static final String REQUEUE_KEY = "requeue-me";
  static final String FAIL_KEY = "fail-me";
  static final String SLOW_KEY = "slow-one";
  static final int REQUEUES = 3;
  static final int FAILURES = 2;
  static final Duration WAIT = Duration.ofSeconds(60);
  /** The stress run's replays: generous, since a shared 2-core machine may run it slowly. */
  static final Duration STRESS_WAIT = Duration.ofSeconds(150);

  private final GroundTruth truth = new GroundTruth();
  private final LockProbe locks = new LockProbe(128);
  private final List<Watched> controllers = new ArrayList<>();
  private volatile String stepTrigger = "change";
  private final CountDownLatch slowStarted = new CountDownLatch(1);
  private final CountDownLatch slowReleased = new CountDownLatch(1);

  public static void main(String[] args) throws Exception {
    String mode = args.length > 0 ? args[0] : "phases";
    ReconcileScenario scenario = new ReconcileScenario();
    if (mode.equals("stress")) {
      scenario.stress(4, 250, 100);
    } else if (mode.equals("attach")) {
      scenario.afterAttach(5, 4);
    } else if (mode.equals("api-requests")) {
      scenario.apiRequests(3, 3);
    } else {
      scenario.phases(5, 4);
    }
    System.exit(0);
  }

  // ---- phases ----------------------------------------------------------------------------------

  void phases(int objects, int changes) throws Exception {
    try (EmbeddedApiServer server = serverWith(objects)) {
      FailingHandler failing = new FailingHandler(truth);
      Phased phased = startPhased(client(server), null, objects, failing);
      Watched every = phased.every;
      Watched filter = phased.filter;
      ControllerManager manager = phased.manager;

      knownSteps(server, phased, objects, changes);

      server.create("default", SLOW_KEY, Map.of("v", "0"));
      if (!slowStarted.await(WAIT.toSeconds(), TimeUnit.SECONDS)) {
        throw new IllegalStateException("the slow reconcile did not start");
      }
      System.out.println("SLOW STARTED");
      System.out.flush();
      BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      stdin.readLine();
      slowReleased.countDown();
      await("the slow reconcile", () -> every.calls(SLOW_KEY) == 1 && filter.calls(SLOW_KEY) == 1);
      awaitIdle();

      // The failing handler has its own listener thread: let it catch up before counting.
      await("the failing handler", () -> failing.adds.get() == every.adds.get() && failing.updates.get() == every.updates.get());
      manager.shutdown();
      report();
      while (stdin.read() >= 0) {
        // the test scrapes, then closes our input
      }
    }
  }

  /**
   * The steps whose trigger is known by construction, each waiting until the controllers are idle:
   * 3 resyncs, real changes, a relist, a reconciler that requeues and one that throws.
   */
  private void knownSteps(EmbeddedApiServer server, Phased phased, int objects, int changes) throws Exception {
    ObservedInformer informer = phased.informer;
    Watched every = phased.every;
    Watched filter = phased.filter;
    stepTrigger = "resync_noop";
    for (int tick = 1; tick <= 3; tick++) {
      long before = every.updates.get();
      informer.replayCache();
      await("resync " + tick, () -> every.updates.get() == before + objects && filter.updates.get() == before + objects);
      awaitIdle();
    }

    stepTrigger = "change";
    for (int i = 0; i < changes; i++) {
      long before = every.updates.get();
      server.update("default", "cm-" + (i % objects), Map.of("v", Integer.toString(i + 1)));
      await("change " + i, () -> every.updates.get() == before + 1 && filter.updates.get() == before + 1);
      awaitIdle();
    }

    stepTrigger = "relist_noop";
    long beforeRelist = every.updates.get();
    await("an open watch", () -> server.openWatchCount() > 0);
    server.expireWatches();
    await("the relist", () -> every.updates.get() == beforeRelist + objects && filter.updates.get() == beforeRelist + objects);
    awaitIdle();

    stepTrigger = "change";
    server.create("default", REQUEUE_KEY, Map.of("v", "0"));
    await("the requeues", () -> every.calls(REQUEUE_KEY) == REQUEUES + 1 && filter.calls(REQUEUE_KEY) == REQUEUES + 1);
    awaitIdle();
    server.create("default", FAIL_KEY, Map.of("v", "0"));
    await("the failures", () -> every.calls(FAIL_KEY) == FAILURES + 1 && filter.calls(FAIL_KEY) == FAILURES + 1);
    awaitIdle();
  }

  // ---- after an attach -------------------------------------------------------------------------

  /**
   * Runs without the agent until everything is idle, says {@code READY FOR ATTACH}, and waits for a
   * line on standard input (the test attaches the agent before it sends one). From then on it counts
   * afresh, through resyncs, changes, a relist, a requeueing and a failing reconciler: all work that
   * starts after the attach. The reconcilers read and write through the API as in
   * {@code api-requests}, before the attach too, so the client's classes are loaded when it comes.
   */
  void afterAttach(int objects, int changes) throws Exception {
    try (EmbeddedApiServer server = serverWith(objects)) {
      ApiClient client = client(server);
      requests = new ApiRequests(client, client(deadPort()), false);
      Phased phased = startPhased(client, null, objects, null);
      BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      System.out.println("READY FOR ATTACH");
      System.out.flush();
      stdin.readLine();
      controllers.forEach(Watched::startCounting);

      knownSteps(server, phased, objects, changes);
      phased.manager.shutdown();
      report();
      while (stdin.read() >= 0) {
        // the test scrapes, then closes our input
      }
    }
  }

  // ---- API requests ------------------------------------------------------------------------------

  /** Set in the api-requests run: the reconcilers read and write through it. */
  private volatile ApiRequests requests;

  /**
   * Like {@code phases} without its failing handler and slow reconciler, with reconcilers that read
   * and make every kind of write in turn ({@link EffectWrites}); then one object whose reconcile reads
   * from a port nothing listens on. The controllers watch the namespace {@code default} only: the
   * writes that change something go to another. The informer's watch stays open, and no other request
   * follows the counts (a watch lasts minutes).
   */
  void apiRequests(int objects, int changes) throws Exception {
    try (EmbeddedApiServer server = serverWith(objects)) {
      ApiClient client = client(server);
      HeaderProbe probe = new HeaderProbe();
      client.setHttpClient(client.getHttpClient().newBuilder().addNetworkInterceptor(probe).build());
      System.out.println("CLIENT CONFIG " + HeaderProbe.describe(client.getHttpClient()));
      requests = new ApiRequests(client, client(deadPort()), true);
      List<String> keys = new ArrayList<>();
      for (int i = 0; i < objects; i++) {
        keys.add("cm-" + i);
      }
      keys.addAll(List.of(REQUEUE_KEY, FAIL_KEY));
      EffectWrites.prepare(server, List.of(EVERY_UPDATE, RV_FILTER), keys);
      Phased phased = startPhased(client, "default", objects, null);

      knownSteps(server, phased, objects, changes);
      stepTrigger = "change";
      server.create("default", ApiRequests.UNREACHABLE_KEY, Map.of("v", "0"));
      await(
          "the unreachable reads",
          () -> phased.every.calls(ApiRequests.UNREACHABLE_KEY) == 1 && phased.filter.calls(ApiRequests.UNREACHABLE_KEY) == 1);
      awaitIdle();

      phased.manager.shutdown();
      String host = "127.0.0.1:" + java.net.URI.create(server.url()).getPort();
      server.responsesStarted().forEach((methodAndCode, count) -> {
        String[] parts = methodAndCode.split(" ");
        truth.set(series("rest_client_requests_total", "code", parts[1], "host", host, "method", parts[0]), count);
        truth.set(series("rest_client_request_duration_seconds_count", "host", host, "verb", parts[0]), truth.get(series("rest_client_request_duration_seconds_count", "host", host, "verb", parts[0])) + count);
      });
      requests.failed.forEach((series, count) -> truth.set(series, count.get()));
      requests.seen.forEach(seen -> System.out.println("RECONCILER SAW " + seen));
      new java.util.TreeSet<>(requests.writes.outcomes).forEach(System.out::println);
      System.out.println("REQUEST HEADERS " + probe.firstGet());
      report();
      while (System.in.read() >= 0) {
        // the test scrapes, then closes our input
      }
    }
  }

  /** A loopback port that nothing listens on (it was bound a moment ago, and closed). */
  private static String deadPort() throws java.io.IOException {
    try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
      return "http://127.0.0.1:" + socket.getLocalPort();
    }
  }

  // ---- stress ----------------------------------------------------------------------------------

  void stress(int informers, int objects, int replays) throws Exception {
    try (EmbeddedApiServer server = EmbeddedApiServer.start()) {
      for (int i = 0; i < objects; i++) {
        server.create("default", "cm-" + i, Map.of("v", "0"));
      }
      ApiClient client = client(server);
      List<ObservedInformer> observed = new ArrayList<>();
      List<ControllerManager> managers = new ArrayList<>();
      ExecutorService run = Executors.newCachedThreadPool(ReconcileScenario::daemon);
      for (int i = 0; i < informers; i++) {
        ResyncScenario.ScenarioInformerFactory factory = new ResyncScenario.ScenarioInformerFactory(client);
        observed.add(informer(factory, client, null));
        ControllerManager manager = manager(factory, watched(factory, "stress-" + i, false, 4));
        managers.add(manager);
        run.submit(manager::run);
      }
      stepTrigger = "change";
      await("initial adds", () -> controllers.stream().allMatch(w -> w.adds.get() == objects));
      awaitIdle();
      stepTrigger = "resync_noop";
      List<Thread> replayers = new ArrayList<>();
      for (int i = 0; i < informers; i++) {
        ObservedInformer informer = observed.get(i);
        Watched watched = controllers.get(i);
        // A replay skips objects whose previous delta still waits, so each waits for the last.
        Thread replayer =
            new Thread(
                () -> {
                  long deadline = System.nanoTime() + STRESS_WAIT.toNanos();
                  for (int r = 1; r <= replays && System.nanoTime() < deadline; r++) {
                    informer.replayCache();
                    long target = (long) objects * r;
                    while (watched.updates.get() < target && System.nanoTime() < deadline) {
                      // Parks rather than spins: on a small machine four spinning threads starve the workers.
                      java.util.concurrent.locks.LockSupport.parkNanos(100_000);
                    }
                  }
                });
        replayer.start();
        replayers.add(replayer);
      }
      for (Thread replayer : replayers) {
        replayer.join(STRESS_WAIT.toMillis());
      }
      long expected = (long) objects * replays;
      await("every replayed update", () -> controllers.stream().allMatch(w -> w.updates.get() == expected));
      awaitIdle();
      managers.forEach(ControllerManager::shutdown);
      truth.set(series("informer_resyncs_total", "kind", "ConfigMap"), observed.stream().mapToLong(ObservedInformer::resyncTicks).sum());
      for (Watched w : controllers) {
        // Every update here is a replay of the cached instance: a resync no-op, enqueued.
        truth.set(series("informer_updates_total", "kind", "ConfigMap", "handler", w.name, "cause", "resync", "resource_version", "unchanged"), w.updates.get());
        truth.set(series("informer_noop_updates_total", "kind", "ConfigMap", "handler", w.name, "cause", "resync", "outcome", "enqueued"), w.updates.get());
      }
      report();
      while (System.in.read() >= 0) {
        // the test scrapes, then closes our input
      }
    }
  }

  // ---- the parts -------------------------------------------------------------------------------

  /** The phased runs' two controllers on one informer. */
  private record Phased(ObservedInformer informer, Watched every, Watched filter, ControllerManager manager) {}

  private static EmbeddedApiServer serverWith(int objects) {
    EmbeddedApiServer server = EmbeddedApiServer.start();
    for (int i = 0; i < objects; i++) {
      server.create("default", "cm-" + i, Map.of("v", "0"));
    }
    return server;
  }

  /**
   * The enqueuing and the filtering controller (4 and 2 workers) on one informer of {@code client}
   * watching {@code namespace} (null: all), with {@code otherHandler} on it first, if any, running,
   * and idle after their initial adds.
   */
  private Phased startPhased(ApiClient client, String namespace, int objects, FailingHandler otherHandler) throws InterruptedException {
    ResyncScenario.ScenarioInformerFactory factory = new ResyncScenario.ScenarioInformerFactory(client);
    ObservedInformer informer = informer(factory, client, namespace);
    if (otherHandler != null) {
      informer.addEventHandler(otherHandler);
    }
    Watched every = watched(factory, EVERY_UPDATE, false, 4);
    Watched filter = watched(factory, RV_FILTER, true, 2);
    ControllerManager manager = manager(factory, every, filter);
    Executors.newSingleThreadExecutor(ReconcileScenario::daemon).submit(manager::run);
    await("initial adds", () -> every.adds.get() == objects && filter.adds.get() == objects);
    awaitIdle();
    return new Phased(informer, every, filter, manager);
  }

  private static ApiClient client(EmbeddedApiServer server) {
    return client(server.url());
  }

  private static ApiClient client(String url) {
    return new ClientBuilder().setBasePath(url).setReadTimeout(Duration.ZERO).build();
  }

  private static ObservedInformer informer(ResyncScenario.ScenarioInformerFactory factory, ApiClient client, String namespace) {
    ObservedInformer informer =
        ObservedInformer.create(
            factory.listerWatcher(new GenericKubernetesApi<>(V1ConfigMap.class, V1ConfigMapList.class, "", "v1", "configmaps", client), namespace), 0);
    factory.register(V1ConfigMap.class, informer);
    return informer;
  }

  private ControllerManager manager(ResyncScenario.ScenarioInformerFactory factory, Watched... watched) {
    return new ControllerManager(factory, java.util.Arrays.stream(watched).map(w -> w.controller).toArray(Controller[]::new));
  }

  /** One controller with its own queue, its filters counting and deciding, its reconciler counting. */
  private Watched watched(ResyncScenario.ScenarioInformerFactory factory, String name, boolean skipUnchanged, int workers) {
    Watched w = new Watched(name);
    w.controller =
        ControllerBuilder.defaultBuilder(factory)
            .withWorkQueue(w.queue)
            .watch(
                queue ->
                    ControllerBuilder.controllerWatchBuilder(V1ConfigMap.class, queue)
                        .withOnAddFilter(
                            object -> {
                              w.adds.incrementAndGet();
                              w.enqueued("change");
                              return true;
                            })
                        .withOnUpdateFilter(
                            (oldObject, newObject) -> {
                              locks.sample();
                              boolean unchanged =
                                  Objects.equals(oldObject.getMetadata().getResourceVersion(), newObject.getMetadata().getResourceVersion());
                              boolean enqueue = !skipUnchanged || !unchanged;
                              if (enqueue) {
                                w.enqueued(!unchanged ? "change" : oldObject == newObject ? "resync_noop" : "relist_noop");
                              }
                              w.updates.incrementAndGet();
                              return enqueue;
                            })
                        .build())
            .withReconciler(request -> reconcile(w, request))
            .withWorkerCount(workers)
            .withName(name)
            .build();
    controllers.add(w);
    return w;
  }

  /** What the reconciler does, and what it counts: each reconcile under the step's trigger. */
  private Result reconcile(Watched w, Request request) {
    locks.sample();
    w.inFlight.incrementAndGet();
    try {
      String key = request.getName();
      int call = w.callsByKey.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
      String trigger =
          key.equals(REQUEUE_KEY) || key.equals(FAIL_KEY) ? (call == 1 ? "change" : "requeue") : key.equals(SLOW_KEY) ? "change" : stepTrigger;
      ApiRequests requests = this.requests;
      // Without API requests (phases, stress) a reconcile writes nothing: its effect is none.
      String effect = requests != null ? requests.readAndWrite(w.name, key, trigger, w::count) : "none";
      w.count(series("controller_reconcile_effect_total", "controller", w.name, "trigger", trigger, "effect", effect));
      if (key.equals(REQUEUE_KEY) && call <= REQUEUES) {
        w.reconciled(trigger, "requeue");
        w.enqueued("requeue");
        w.retries.incrementAndGet();
        return new Result(true);
      }
      if (key.equals(FAIL_KEY) && call <= FAILURES) {
        w.reconciled(trigger, "error");
        w.enqueued("requeue");
        w.retries.incrementAndGet();
        if (call == 1) {
          throw new IllegalStateException("the scenario's reconciler fails on purpose");
        }
        // As Kotlin or @SneakyThrows code does: a checked exception that Reconciler does not declare.
        throw sneaky(new java.io.IOException("the scenario's reconciler fails on purpose with a checked exception"));
      }
      if (key.equals(SLOW_KEY) && w.name.equals(EVERY_UPDATE)) {
        slowStarted.countDown();
        try {
          slowReleased.await(WAIT.toSeconds(), TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      w.reconciled(trigger, "success");
      return new Result(false);
    } finally {
      w.inFlight.decrementAndGet();
    }
  }

  @SuppressWarnings("unchecked")
  private static <T extends Throwable> RuntimeException sneaky(Throwable checked) throws T {
    throw (T) checked;
  }

  /** Idle: every queue empty and no reconcile running, for a little while (requeue delays are short). */
  private void awaitIdle() throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    int quiet = 0;
    while (quiet < 6) {
      boolean idle = controllers.stream().allMatch(w -> w.queue.length() == 0 && w.inFlight.get() == 0);
      quiet = idle ? quiet + 1 : 0;
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the controllers did not become idle");
      }
      Thread.sleep(50);
    }
  }

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    ResyncScenario.await(what, condition);
  }

  private void report() {
    for (Watched w : controllers) {
      w.counts.forEach((series, count) -> truth.set(series, count.get()));
      long reconciles = w.reconciles.values().stream().mapToLong(AtomicLong::get).sum();
      truth.set("reconciles_of{controller=\"" + w.name + "\"}", reconciles);
      truth.set(series("workqueue_retries_total", "name", w.name), w.retries.get());
      truth.set(series("informer_notifications_total", "kind", "ConfigMap", "handler", w.name, "type", "add"), w.adds.get());
      truth.set(series("informer_notifications_total", "kind", "ConfigMap", "handler", w.name, "type", "update"), w.updates.get());
    }
    System.out.print(truth.render());
    System.out.println(locks.report());
    System.out.println("SCENARIO DONE");
    System.out.flush();
  }

  private static Thread daemon(Runnable runnable) {
    Thread thread = new Thread(runnable, "scenario-controller-manager");
    thread.setDaemon(true);
    return thread;
  }

  /** One controller and what the application saw of it. */
  private static final class Watched {
    final String name;
    final RateLimitingQueue<Request> queue = new DefaultRateLimitingQueue<>(Executors.newSingleThreadExecutor(ReconcileScenario::daemon));
    final AtomicLong adds = new AtomicLong();
    final AtomicLong updates = new AtomicLong();
    final AtomicLong retries = new AtomicLong();
    final AtomicInteger inFlight = new AtomicInteger();
    final Map<String, AtomicInteger> callsByKey = new ConcurrentHashMap<>();
    final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();
    final Map<String, AtomicLong> reconciles = new ConcurrentHashMap<>();
    Controller controller;

    Watched(String name) {
      this.name = name;
    }

    /** Forgets what was counted so far: from here on the agent counts too. */
    void startCounting() {
      adds.set(0);
      updates.set(0);
      retries.set(0);
      counts.clear();
      reconciles.clear();
    }

    int calls(String key) {
      AtomicInteger calls = callsByKey.get(key);
      return calls == null ? 0 : calls.get();
    }

    void enqueued(String trigger) {
      count(series("workqueue_trigger_adds_total", "name", name, "trigger", trigger));
    }

    void reconciled(String trigger, String result) {
      count(series("controller_reconcile_total", "controller", name, "trigger", trigger, "result", result));
      count(series("controller_reconcile_duration_seconds_count", "controller", name, "trigger", trigger));
      reconciles.computeIfAbsent(trigger + "/" + result, k -> new AtomicLong()).incrementAndGet();
    }

    void count(String series) {
      counts.computeIfAbsent(series, k -> new AtomicLong()).incrementAndGet();
    }
  }
}
