package dev.resyncmeter.examples.controller;

import io.kubernetes.client.extended.controller.Controller;
import io.kubernetes.client.extended.controller.ControllerManager;
import io.kubernetes.client.extended.controller.builder.ControllerBuilder;
import io.kubernetes.client.extended.controller.reconciler.Reconciler;
import io.kubernetes.client.extended.controller.reconciler.Request;
import io.kubernetes.client.extended.controller.reconciler.Result;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapList;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The sample: two client-java controllers over one shared ConfigMap informer with a resync period.
 * {@value #EVERY_UPDATE} enqueues every update, as the Go deployment controller's
 * {@code updateDeployment} does; {@value #RV_FILTER} skips updates whose resource version did not
 * change, as its {@code updateReplicaSet} does. Nothing in here knows about resync-meter.
 */
public final class SampleController implements AutoCloseable {

  public static final String EVERY_UPDATE = "configmap-every-update";
  public static final String RV_FILTER = "configmap-rv-filter";
  static final Duration RECONCILE_WORK = Duration.ofMillis(20);

  /** What each watch's filters saw and decided: the application's own view of its handlers. */
  public interface WatchObserver {
    void added(String controller, V1ConfigMap object);

    void updated(String controller, V1ConfigMap oldObject, V1ConfigMap newObject, boolean enqueue);

    void deleted(String controller, V1ConfigMap object);

    WatchObserver NONE =
        new WatchObserver() {
          @Override
          public void added(String controller, V1ConfigMap object) {}

          @Override
          public void updated(String controller, V1ConfigMap oldObject, V1ConfigMap newObject, boolean enqueue) {}

          @Override
          public void deleted(String controller, V1ConfigMap object) {}
        };
  }

  private final SharedInformerFactory factory;
  private final ControllerManager manager;
  private final ExecutorService managerThread = Executors.newSingleThreadExecutor(daemon("sample-controller-manager"));
  private final AtomicLong reconciles = new AtomicLong();

  /**
   * Builds both controllers on {@code informer}, which must already be registered in
   * {@code factory}; {@code resyncPeriod} is what the watches ask for; their reconcilers read through
   * {@code client}.
   */
  public SampleController(
      ApiClient client,
      SharedInformerFactory factory,
      SharedIndexInformer<V1ConfigMap> informer,
      Duration resyncPeriod,
      WatchObserver observer) {
    this.factory = factory;
    GenericKubernetesApi<V1ConfigMap, V1ConfigMapList> api = new GenericKubernetesApi<>(V1ConfigMap.class, V1ConfigMapList.class, "", "v1", "configmaps", client);
    Controller everyUpdate = controller(EVERY_UPDATE, informer, api, resyncPeriod, observer, false);
    Controller rvFilter = controller(RV_FILTER, informer, api, resyncPeriod, observer, true);
    this.manager = ControllerBuilder.controllerManagerBuilder(factory).addController(everyUpdate).addController(rvFilter).build();
  }

  private Controller controller(
      String name,
      SharedIndexInformer<V1ConfigMap> informer,
      GenericKubernetesApi<V1ConfigMap, V1ConfigMapList> api,
      Duration resyncPeriod,
      WatchObserver observer,
      boolean skipUnchangedVersions) {
    // As in client-java's own examples, the name is set after the watch: the agent must cope.
    return ControllerBuilder.defaultBuilder(factory)
        .watch(
            queue ->
                ControllerBuilder.controllerWatchBuilder(V1ConfigMap.class, queue)
                    .withResyncPeriod(resyncPeriod)
                    .withOnAddFilter(
                        object -> {
                          observer.added(name, object);
                          return true;
                        })
                    .withOnUpdateFilter(
                        (oldObject, newObject) -> {
                          boolean enqueue = !skipUnchangedVersions || !sameResourceVersion(oldObject, newObject);
                          observer.updated(name, oldObject, newObject, enqueue);
                          return enqueue;
                        })
                    .withOnDeleteFilter(
                        (object, finalStateUnknown) -> {
                          observer.deleted(name, object);
                          return true;
                        })
                    .build())
        .withReconciler(new ConfigMapReconciler(informer, api))
        .withReadyFunc(informer::hasSynced)
        .withWorkerCount(2)
        .withName(name)
        .build();
  }

  static boolean sameResourceVersion(V1ConfigMap oldObject, V1ConfigMap newObject) {
    return Objects.equals(oldObject.getMetadata().getResourceVersion(), newObject.getMetadata().getResourceVersion());
  }

  /** Starts the informers and both controllers; returns at once. */
  public void start() {
    managerThread.submit(manager::run);
  }

  public long reconciles() {
    return reconciles.get();
  }

  @Override
  public void close() {
    manager.shutdown();
    managerThread.shutdownNow();
  }

  /**
   * Reads the object from the informer's cache and once from the API server (as reconcilers that
   * check the latest version do), and counts itself.
   */
  private final class ConfigMapReconciler implements Reconciler {
    private final SharedIndexInformer<V1ConfigMap> informer;
    private final GenericKubernetesApi<V1ConfigMap, V1ConfigMapList> api;

    ConfigMapReconciler(SharedIndexInformer<V1ConfigMap> informer, GenericKubernetesApi<V1ConfigMap, V1ConfigMapList> api) {
      this.informer = informer;
      this.api = api;
    }

    @Override
    public Result reconcile(Request request) {
      reconciles.incrementAndGet();
      String key = request.getNamespace() + "/" + request.getName();
      V1ConfigMap current = informer.getIndexer().getByKey(key);
      if (current != null && current.getData() != null) {
        current.getData().values().forEach(String::hashCode);
      }
      api.get(request.getNamespace(), request.getName());
      // Stands for the rest of a real reconcile's work (a status write, a get of a child).
      try {
        Thread.sleep(RECONCILE_WORK.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return new Result(false);
    }
  }

  static java.util.concurrent.ThreadFactory daemon(String name) {
    return runnable -> {
      Thread thread = new Thread(runnable, name);
      thread.setDaemon(true);
      return thread;
    };
  }
}
