package dev.resyncmeter.examples.scenario;

import static dev.resyncmeter.examples.truth.Truth.series;

import dev.resyncmeter.examples.apiserver.EmbeddedApiServer;
import dev.resyncmeter.examples.controller.SampleController;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapList;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BooleanSupplier;

/**
 * A fixed run of the sample controllers against the embedded API server, for the end-to-end tests:
 * N objects, K resync ticks, M real changes, R forced relists, one delete. Every handler counts what
 * it saw; the informer counts its ticks, lists and relist notifications. When the informer has
 * stopped, the scenario prints its ground truth ({@code truth <series> <count>} lines), then
 * {@code SCENARIO DONE}, and waits for its standard input to close so the test can scrape first;
 * then it prints each sample controller's own count of its reconciles
 * ({@code reconciles <controller> <count>}).
 *
 * <p>The objects never change while the watch is down, so by construction an update whose two
 * objects differ in version is a watch event, one with the same instance is a resync, and one with
 * equal versions but two instances is a relist.
 */
public final class ResyncScenario {

  static final String KIND = "ConfigMap";
  static final String AUDIT_HANDLER = "ResyncScenario$AuditHandler";
  static final Duration WAIT = Duration.ofSeconds(30);

  private final GroundTruth truth = new GroundTruth();
  /** Handlers registered beside the audit handler (handler-shapes-scenario); none in the plain scenario. */
  private final List<ResourceEventHandler<V1ConfigMap>> moreHandlers;

  private ResyncScenario(boolean handlerShapes) {
    this.moreHandlers = handlerShapes ? HandlerShapes.all(new ShapeCalls()) : List.of();
  }

  public static void main(String[] args) throws Exception {
    run(args, false);
  }

  /** The same run with a handler of each shape compilers make beside the audit handler ({@link HandlerShapes}). */
  public static void withHandlerShapes(String[] args) throws Exception {
    run(args, true);
  }

  private static void run(String[] args, boolean handlerShapes) throws Exception {
    int objects = args.length > 0 ? Integer.parseInt(args[0]) : 4;
    int ticks = args.length > 1 ? Integer.parseInt(args[1]) : 2;
    int changes = args.length > 2 ? Integer.parseInt(args[2]) : 6;
    int relists = args.length > 3 ? Integer.parseInt(args[3]) : 2;
    new ResyncScenario(handlerShapes).run(objects, ticks, changes, relists);
    // client-java-extended leaves a non-daemon thread behind (the builder's default queue's executor).
    System.exit(0);
  }

  void run(int objects, int ticks, int changes, int relists) throws Exception {
    try (EmbeddedApiServer server = EmbeddedApiServer.start()) {
      ApiClient client = new ClientBuilder().setBasePath(server.url()).setReadTimeout(Duration.ZERO).build();
      ScenarioInformerFactory factory = new ScenarioInformerFactory(client);
      ObservedInformer informer =
          ObservedInformer.create(
              factory.listerWatcher(new GenericKubernetesApi<>(V1ConfigMap.class, V1ConfigMapList.class, "", "v1", "configmaps", client)),
              1000);
      factory.register(V1ConfigMap.class, informer);
      // Asks for no resync; client-java gives it the informer's period all the same.
      AuditHandler audit = new AuditHandler();
      informer.addEventHandlerWithResyncPeriod(audit, 0);
      for (ResourceEventHandler<V1ConfigMap> handler : moreHandlers) {
        informer.addEventHandlerWithResyncPeriod(handler, 0);
      }
      SampleController controllers = new SampleController(client, factory, informer, Duration.ofSeconds(1), new Observer());
      controllers.start();

      // The objects come after the first (empty) list, as watch events: client-java hands a list's
      // notifications only to handlers whose resync was due at the last tick, so on a loaded machine
      // listed objects could reach no handler at all and never be added.
      await("the first watch", () -> server.openWatchCount() > 0);
      for (int i = 0; i < objects; i++) {
        server.create("default", "cm-" + i, Map.of("value", "0"));
      }
      await("initial adds", () -> audit.adds == objects);
      long ticksBefore = informer.resyncTicks();
      await(ticks + " resync ticks", () -> informer.resyncTicks() >= ticksBefore + ticks);
      for (int i = 0; i < changes; i++) {
        server.update("default", "cm-" + (i % objects), Map.of("value", Integer.toString(i + 1)));
      }
      await(changes + " watch updates", () -> audit.watchUpdates == changes);
      for (int r = 1; r <= relists; r++) {
        long listsBefore = informer.lists();
        await("an open watch", () -> server.openWatchCount() > 0);
        server.expireWatches();
        await("relist " + r, () -> informer.lists() == listsBefore + 1);
      }
      await("the watch after the last relist", () -> server.openWatchCount() > 0);
      server.delete("default", "cm-0");
      await("the delete", () -> audit.deletes == 1);
      long ticksAfterRelists = informer.resyncTicks();
      await("one more resync tick", () -> informer.resyncTicks() > ticksAfterRelists);

      // Stopping the informer waits for its listener threads: from here no count can change.
      controllers.close();

      truth.set(series("informer_resyncs_total", "kind", KIND), informer.resyncTicks());
      truth.set(series("informer_relists_total", "kind", KIND, "reason", "expired"), informer.lists() - 1);
      truth.set(series("informer_relists_total", "kind", KIND, "reason", "error"), 0);
      truth.set(
          series("informer_relist_notifications_lost_total", "kind", KIND),
          informer.relistNotifications() - audit.relistUpdates);
      System.out.print(truth.render());
      System.out.println("SCENARIO DONE");
      System.out.flush();
      // The test scrapes the agent now, then closes our standard input.
      while (System.in.read() >= 0) {
        // drain until closed
      }
      // Said last: a reconcile its last step queued may still run after the informer stopped.
      for (String controller : java.util.List.of(SampleController.EVERY_UPDATE, SampleController.RV_FILTER)) {
        System.out.println("reconciles " + controller + " " + controllers.reconciles(controller));
      }
    }
  }

  static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("timed out waiting for " + what);
      }
      Thread.sleep(20);
    }
  }

  /** How the application sees one update: the cause it knows by construction. */
  static String cause(V1ConfigMap oldObject, V1ConfigMap newObject) {
    if (oldObject == newObject) {
      return "resync";
    }
    return unchanged(oldObject, newObject) ? "relist" : "watch";
  }

  static boolean unchanged(V1ConfigMap oldObject, V1ConfigMap newObject) {
    return Objects.equals(oldObject.getMetadata().getResourceVersion(), newObject.getMetadata().getResourceVersion());
  }

  private void recordUpdate(String handler, V1ConfigMap oldObject, V1ConfigMap newObject, String outcome) {
    truth.handlerUpdate(handler, oldObject, newObject, outcome);
  }

  private void recordOther(String handler, String type) {
    truth.handlerCall(handler, type);
  }

  /** The controllers' filters see every notification their handlers get, and decide on it. */
  private final class Observer implements SampleController.WatchObserver {
    @Override
    public void added(String controller, V1ConfigMap object) {
      recordOther(controller, "add");
    }

    @Override
    public void updated(String controller, V1ConfigMap oldObject, V1ConfigMap newObject, boolean enqueue) {
      recordUpdate(controller, oldObject, newObject, enqueue ? "enqueued" : "dropped");
    }

    @Override
    public void deleted(String controller, V1ConfigMap object) {
      recordOther(controller, "delete");
    }
  }

  /** What the handlers of {@link HandlerShapes} saw, told to the ground truth as the audit handler tells it. */
  private final class ShapeCalls implements HandlerShapes.Calls {
    @Override
    public void add(String handler) {
      recordOther(handler, "add");
    }

    @Override
    public void update(String handler, V1ConfigMap oldObject, V1ConfigMap newObject) {
      recordUpdate(handler, oldObject, newObject, "dropped");
    }

    @Override
    public void delete(String handler) {
      recordOther(handler, "delete");
    }
  }

  /** A handler of the application's own that only counts: it never enqueues anything. */
  private final class AuditHandler implements ResourceEventHandler<V1ConfigMap> {
    volatile int adds;
    volatile int deletes;
    volatile int watchUpdates;
    volatile int relistUpdates;

    @Override
    public void onAdd(V1ConfigMap object) {
      adds++;
      recordOther(AUDIT_HANDLER, "add");
    }

    @Override
    public void onUpdate(V1ConfigMap oldObject, V1ConfigMap newObject) {
      String cause = cause(oldObject, newObject);
      if (cause.equals("watch")) {
        watchUpdates++;
      } else if (cause.equals("relist")) {
        relistUpdates++;
      }
      recordUpdate(AUDIT_HANDLER, oldObject, newObject, "dropped");
    }

    @Override
    public void onDelete(V1ConfigMap object, boolean deletedFinalStateUnknown) {
      deletes++;
      recordOther(AUDIT_HANDLER, "delete");
    }
  }

  /** The factory, with the scenario's observed informer registered where controllers look for it. */
  static final class ScenarioInformerFactory extends SharedInformerFactory {
    ScenarioInformerFactory(ApiClient client) {
      super(client);
    }

    void register(Class<V1ConfigMap> type, ObservedInformer informer) {
      informers.put(com.google.gson.reflect.TypeToken.get(type).getType(), informer);
    }

    io.kubernetes.client.informer.ListerWatcher<V1ConfigMap, V1ConfigMapList> listerWatcher(
        GenericKubernetesApi<V1ConfigMap, V1ConfigMapList> api) {
      return new GenericListerWatcher(api, null);
    }

    /** Lists and watches one namespace only ({@code null}: all of them). */
    io.kubernetes.client.informer.ListerWatcher<V1ConfigMap, V1ConfigMapList> listerWatcher(
        GenericKubernetesApi<V1ConfigMap, V1ConfigMapList> api, String namespace) {
      return new GenericListerWatcher(api, namespace);
    }
  }

  /** List and watch through client-java's generic API, as the factory's own informers do. */
  static final class GenericListerWatcher implements io.kubernetes.client.informer.ListerWatcher<V1ConfigMap, V1ConfigMapList> {
    private final GenericKubernetesApi<V1ConfigMap, V1ConfigMapList> api;
    private final String namespace;

    GenericListerWatcher(GenericKubernetesApi<V1ConfigMap, V1ConfigMapList> api, String namespace) {
      this.api = api;
      this.namespace = namespace;
    }

    @Override
    public V1ConfigMapList list(io.kubernetes.client.util.CallGeneratorParams params) throws io.kubernetes.client.openapi.ApiException {
      io.kubernetes.client.util.generic.options.ListOptions options = new io.kubernetes.client.util.generic.options.ListOptions();
      options.setResourceVersion(params.resourceVersion);
      options.setTimeoutSeconds(params.timeoutSeconds);
      return (namespace == null ? api.list(options) : api.list(namespace, options)).throwsApiException().getObject();
    }

    @Override
    public io.kubernetes.client.util.Watchable<V1ConfigMap> watch(io.kubernetes.client.util.CallGeneratorParams params)
        throws io.kubernetes.client.openapi.ApiException {
      io.kubernetes.client.util.generic.options.ListOptions options = new io.kubernetes.client.util.generic.options.ListOptions();
      options.setResourceVersion(params.resourceVersion);
      options.setTimeoutSeconds(params.timeoutSeconds);
      return namespace == null ? api.watch(options) : api.watch(namespace, options);
    }
  }

  static {
    // The scenario's own log stays quiet; the test reads its standard output.
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
  }

}
