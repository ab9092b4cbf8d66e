package dev.resyncmeter.examples.scenario;

import dev.resyncmeter.examples.apiserver.EmbeddedApiServer;
import dev.resyncmeter.examples.truth.EchoTruth;
import dev.resyncmeter.examples.truth.Truth;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.extended.controller.Controller;
import io.kubernetes.client.extended.controller.ControllerManager;
import io.kubernetes.client.extended.controller.builder.ControllerBuilder;
import io.kubernetes.client.extended.controller.reconciler.Request;
import io.kubernetes.client.extended.controller.reconciler.Result;
import io.kubernetes.client.extended.workqueue.DefaultRateLimitingQueue;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapList;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import io.kubernetes.client.util.generic.options.PatchOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * Echoes with client-java on the embedded API server, for the end-to-end test of
 * {@code informer_own_write_updates_total} and the {@code own_write} trigger: two controllers
 * ({@value #STAMPER}, {@value #SETTLER}) on one informer of the namespace {@value #NAMESPACE}
 * (resync off), each enqueuing every add and update, each reconcile reading its object from the API.
 *
 * <ul>
 *   <li>{@value #STAMPER} stamps a counter on {@code stamp-0} on every reconcile, each round with
 *       another kind of write: an update, a JSON merge patch, a JSON patch, a server-side apply. Each write's echo
 *       brings the next reconcile: a loop, until its bound ({@value #ROUNDS} rounds), where it
 *       writes the object back as read, which changes nothing: no event, and the loop ends.
 *   <li>{@value #SETTLER} labels {@code settle-0} and {@code settle-other} {@code settled=true}
 *       with a merge patch when the label is missing, and writes nothing else: it settles after one
 *       echo. Right after its write to {@code settle-other}, another client (the server's own Java
 *       API, which the agent does not see) changes that object's data: its update carries the other
 *       client's version, no echo.
 *   <li>Each controller watches what the other writes: {@value #SETTLER} reconciles on the
 *       stamper's echoes, and the stamper on the settler's, writing nothing.
 *   <li>The embedded server applies a server-side apply as a merge of the fields it names, without
 *       managed fields: enough for what an echo is, the version the apply was answered with.
 * </ul>
 *
 * <p>The application's own counts ({@link EchoTruth}) are printed as {@code truth} lines, with each
 * write's outcome ({@code WRITE ...}), each update call and whether it was an echo ({@code UPDATE
 * ...}), the loop's steps ({@code LOOP STEPS ...}) and {@code SCENARIO DONE}; then it waits for its
 * standard input to close.
 */
public final class EchoScenario {

  static final String NAMESPACE = "echo";
  static final String STAMPER = "timestamp-stamper";
  static final String SETTLER = "label-settler";
  static final String KIND = "ConfigMap";
  /** The stamper's bound: it writes this many stamps on an object, then the object as read. */
  static final int ROUNDS = 4;
  static final String STAMP = "stamp";
  static final String SETTLED = "settled";
  static final String OTHER_WRITTEN = "settle-other";
  static final Duration WAIT = Duration.ofSeconds(60);

  private final EchoTruth echoes = new EchoTruth();
  private final List<Watched> controllers = new ArrayList<>();
  private final AtomicInteger noOpWrites = new AtomicInteger();
  private EmbeddedApiServer server;
  private GenericKubernetesApi<V1ConfigMap, V1ConfigMapList> api;

  public static void main(String[] args) throws Exception {
    new EchoScenario().run();
    System.exit(0);
  }

  void run() throws Exception {
    try (EmbeddedApiServer started = EmbeddedApiServer.start()) {
      server = started;
      for (String name : List.of("stamp-0", "settle-0", OTHER_WRITTEN)) {
        server.create(NAMESPACE, name, Map.of("v", "0"));
      }
      ApiClient client = new ClientBuilder().setBasePath(server.url()).setReadTimeout(Duration.ZERO).build();
      api = new GenericKubernetesApi<>(V1ConfigMap.class, V1ConfigMapList.class, "", "v1", "configmaps", client);
      SharedInformerFactory factory = new SharedInformerFactory(client);
      factory.sharedIndexInformerFor(api, V1ConfigMap.class, 0, NAMESPACE);
      Watched stamper = watched(factory, STAMPER);
      Watched settler = watched(factory, SETTLER);
      ControllerManager manager = new ControllerManager(factory, new Controller[] {stamper.controller, settler.controller});
      Executors.newSingleThreadExecutor(EchoScenario::daemon).submit(manager::run);

      String stampUid = server.get(NAMESPACE, "stamp-0").orElseThrow().getMetadata().getUid();
      await("the stamper's bound", () -> noOpWrites.get() == 1);
      await("the settled labels", () -> List.of("settle-0", OTHER_WRITTEN).stream().allMatch(n -> "true".equals(labels(n).get(SETTLED))));
      String otherVersion = server.get(NAMESPACE, OTHER_WRITTEN).orElseThrow().getMetadata().getResourceVersion();
      String otherUid = server.get(NAMESPACE, OTHER_WRITTEN).orElseThrow().getMetadata().getUid();
      await("the other client's write at both handlers", () -> echoes.updates(STAMPER) == echoes.updates(SETTLER) && echoes.seen(otherUid, otherVersion));
      awaitIdle();
      // nothing comes after the write that changed nothing: the loop ended
      Thread.sleep(500);
      awaitIdle();
      manager.shutdown();
      if (!stampUid.equals(server.get(NAMESPACE, "stamp-0").orElseThrow().getMetadata().getUid())) {
        throw new IllegalStateException("stamp-0 was replaced");
      }
      report();
      while (System.in.read() >= 0) {
        // the test scrapes, then closes our input
      }
    }
  }

  private Map<String, String> labels(String name) {
    Map<String, String> labels = server.get(NAMESPACE, name).orElseThrow().getMetadata().getLabels();
    return labels == null ? Map.of() : labels;
  }

  private void report() {
    Truth truth = new Truth();
    echoes.countInto(truth, true);
    echoes.transcript().forEach(System.out::println);
    System.out.print(truth.render());
    System.out.println("SCENARIO DONE");
    System.out.flush();
  }

  // ---- the controllers ---------------------------------------------------------------------------

  /** One controller: its queue, its handler recording every call, its reconciler recording every reconcile. */
  private Watched watched(SharedInformerFactory factory, String name) {
    Watched w = new Watched(name);
    w.controller =
        ControllerBuilder.defaultBuilder(factory)
            .withWorkQueue(w.queue)
            .watch(
                queue ->
                    ControllerBuilder.controllerWatchBuilder(V1ConfigMap.class, queue)
                        .withOnAddFilter(
                            object -> {
                              ADDING.set(Optional.empty());
                              return true;
                            })
                        .withOnUpdateFilter(
                            (oldObject, newObject) -> {
                              ADDING.set(
                                  Optional.of(
                                      echoes.updated(
                                          name, KIND, newObject.getMetadata().getUid(), oldObject.getMetadata().getResourceVersion(), newObject.getMetadata().getResourceVersion())));
                              return true;
                            })
                        .build())
            .withReconciler(request -> reconcile(w, request))
            .withWorkerCount(1)
            .withName(name)
            .build();
    controllers.add(w);
    return w;
  }

  private Result reconcile(Watched w, Request request) {
    w.inFlight.incrementAndGet();
    try {
      String key = request.getName();
      List<EchoTruth.Add> taken = w.taken.remove(key);
      List<String> verbs = new ArrayList<>();
      String effect;
      try {
        effect = w.name.equals(STAMPER) ? stamp(key, verbs) : settle(key, verbs);
      } catch (RuntimeException e) {
        System.out.println("RECONCILE FAILED " + w.name + " " + key + ": " + e);
        echoes.reconciled(w.name, key, taken, "error", "none", verbs);
        throw e;
      }
      echoes.reconciled(w.name, key, taken, "success", effect, verbs);
      return new Result(false);
    } finally {
      w.inFlight.decrementAndGet();
    }
  }

  /** The stamper: the next stamp on its own objects, in turn by update, merge patch and JSON patch; then the object as read. */
  private String stamp(String key, List<String> verbs) {
    V1ConfigMap read = get(key, verbs);
    if (!key.startsWith("stamp-")) {
      return "none";
    }
    String sent = read.getMetadata().getResourceVersion();
    String uid = read.getMetadata().getUid();
    int round = read.getData().containsKey(STAMP) ? Integer.parseInt(read.getData().get(STAMP)) : 0;
    String next = Integer.toString(round + 1);
    KubernetesApiResponse<V1ConfigMap> answer;
    String what;
    switch (round) {
      case 0 -> {
        Map<String, String> data = new LinkedHashMap<>(read.getData());
        data.put(STAMP, next);
        verbs.add("update");
        what = "update";
        answer = api.update(read.data(data));
      }
      case 1 -> {
        verbs.add("patch");
        what = "merge patch";
        answer = api.patch(NAMESPACE, key, V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, new V1Patch("{\"data\":{\"" + STAMP + "\":\"" + next + "\"}}"));
      }
      case 2 -> {
        verbs.add("patch");
        what = "JSON patch";
        answer =
            api.patch(
                NAMESPACE,
                key,
                V1Patch.PATCH_FORMAT_JSON_PATCH,
                new V1Patch("[{\"op\":\"test\",\"path\":\"/metadata/resourceVersion\",\"value\":\"" + sent + "\"},{\"op\":\"replace\",\"path\":\"/data/" + STAMP + "\",\"value\":\"" + next + "\"}]"),
                new PatchOptions());
      }
      case 3 -> {
        verbs.add("patch");
        what = "server-side apply";
        PatchOptions options = new PatchOptions();
        options.setFieldManager(STAMPER);
        options.setForce(true);
        answer =
            api.patch(
                NAMESPACE,
                key,
                V1Patch.PATCH_FORMAT_APPLY_YAML,
                new V1Patch(
                    "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"" + key + "\",\"namespace\":\"" + NAMESPACE + "\"},\"data\":{\""
                        + STAMP + "\":\"" + next + "\"}}"),
                options);
      }
      default -> {
        // the bound: the object as read, which changes nothing
        verbs.add("update");
        what = "update (the stamper's bound, the object as read)";
        answer = api.update(read);
      }
    }
    String answered = version(answer, what + " of " + key);
    echoes.answered(what, key, uid, sent, answered);
    if (answered.equals(sent)) {
      noOpWrites.incrementAndGet();
      return "unchanged";
    }
    return "changed";
  }

  /** The settler: the label when it is missing, else nothing; on {@value #OTHER_WRITTEN} another client writes right after it. */
  private String settle(String key, List<String> verbs) {
    V1ConfigMap read = get(key, verbs);
    if (!key.startsWith("settle-")) {
      return "none";
    }
    Map<String, String> labels = read.getMetadata().getLabels();
    if (labels != null && "true".equals(labels.get(SETTLED))) {
      return "none";
    }
    verbs.add("patch");
    String sent = read.getMetadata().getResourceVersion();
    String answered =
        version(api.patch(NAMESPACE, key, V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, new V1Patch("{\"metadata\":{\"labels\":{\"" + SETTLED + "\":\"true\"}}}")), "merge patch of " + key);
    echoes.answered("merge patch", key, read.getMetadata().getUid(), sent, answered);
    if (key.equals(OTHER_WRITTEN)) {
      // another client, between our write and its echo: the server's Java API, no request of ours
      Map<String, String> data = new LinkedHashMap<>(server.get(NAMESPACE, key).orElseThrow().getData());
      data.put("other", "written");
      server.update(NAMESPACE, key, data);
    }
    return answered.equals(sent) ? "unchanged" : "changed";
  }

  private V1ConfigMap get(String key, List<String> verbs) {
    verbs.add("get");
    KubernetesApiResponse<V1ConfigMap> read = api.get(NAMESPACE, key);
    if (!read.isSuccess()) {
      throw new IllegalStateException("reading " + key + " failed: " + read.getHttpStatusCode());
    }
    return read.getObject();
  }

  private static String version(KubernetesApiResponse<V1ConfigMap> answer, String what) {
    if (!answer.isSuccess()) {
      throw new IllegalStateException(what + " failed: " + answer.getHttpStatusCode() + " " + answer.getStatus());
    }
    return answer.getObject().getMetadata().getResourceVersion();
  }

  /** Idle: every add taken, every queue empty and no reconcile running, for a little while. */
  private void awaitIdle() throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    int quiet = 0;
    while (quiet < 6) {
      boolean idle = echoes.waitingAdds() == 0 && controllers.stream().allMatch(w -> w.queue.length() == 0 && w.inFlight.get() == 0);
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

  private static Thread daemon(Runnable runnable) {
    Thread thread = new Thread(runnable, "echo-scenario-controllers");
    thread.setDaemon(true);
    return thread;
  }

  /** What the handler on this thread is adding: an update call, or empty for an add call. */
  private static final ThreadLocal<Optional<EchoTruth.Update>> ADDING = new ThreadLocal<>();

  private final class Watched {
    final String name;
    final TrackingQueue queue = new TrackingQueue(this);
    final AtomicInteger inFlight = new AtomicInteger();
    /** The adds each item's reconcile took, from the moment the queue handed it out. */
    final Map<String, List<EchoTruth.Add>> taken = new ConcurrentHashMap<>();
    Controller controller;

    Watched(String name) {
      this.name = name;
    }
  }

  /**
   * client-java's queue, recording each add with the handler call that made it and, when it hands an
   * item out, the adds merged into it, both under the queue's own monitor (its methods are
   * synchronized): an add while the item waits is merged, one while it is processed waits for the next.
   */
  private final class TrackingQueue extends DefaultRateLimitingQueue<Request> {
    private final Watched owner;

    TrackingQueue(Watched owner) {
      super(Executors.newSingleThreadExecutor(EchoScenario::daemon));
      this.owner = owner;
    }

    @Override
    public void add(Request item) {
      synchronized (this) {
        Optional<EchoTruth.Update> adding = ADDING.get();
        if (adding == null) {
          throw new IllegalStateException("an add to " + owner.name + " that no handler made: " + item);
        }
        ADDING.remove();
        echoes.enqueued(owner.name, item.getName(), adding.orElse(null));
        super.add(item);
      }
    }

    @Override
    public Request get() throws InterruptedException {
      synchronized (this) {
        Request item = super.get();
        if (item != null) {
          owner.taken.put(item.getName(), echoes.take(owner.name, item.getName()));
        }
        return item;
      }
    }
  }
}
