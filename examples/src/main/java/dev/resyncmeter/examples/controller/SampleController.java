package dev.resyncmeter.examples.controller;

import io.kubernetes.client.extended.controller.Controller;
import io.kubernetes.client.extended.controller.ControllerManager;
import io.kubernetes.client.extended.controller.builder.ControllerManagerBuilder;
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
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The sample: two client-java controllers over one shared ConfigMap informer with a resync period.
 * {@value #EVERY_UPDATE} enqueues every update, as the Go deployment controller's
 * {@code updateDeployment} does; {@value #RV_FILTER} skips updates whose resource version did not
 * change, as its {@code updateReplicaSet} does. Both only read: their resync reconciles change
 * nothing. On request a third, {@value #DRIFT_REPAIR}, enqueues every update too and writes: it keeps
 * every ConfigMap's {@value #LOG_LEVEL} at {@value #DESIRED_LOG_LEVEL}, so a resync that replays an
 * object whose server copy drifted without a watch event repairs it. Nothing in here knows about
 * resync-meter.
 */
public final class SampleController implements AutoCloseable {

  public static final String EVERY_UPDATE = "configmap-every-update";
  public static final String RV_FILTER = "configmap-rv-filter";
  public static final String DRIFT_REPAIR = "configmap-drift-repair";
  /** The data key {@value #DRIFT_REPAIR} keeps at {@value #DESIRED_LOG_LEVEL}. */
  public static final String LOG_LEVEL = "log-level";
  public static final String DESIRED_LOG_LEVEL = "info";
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
  private final Map<String, AtomicLong> reconciles = new ConcurrentHashMap<>();

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
    this(client, factory, informer, resyncPeriod, observer, false);
  }

  /**
   * Both controllers and, with {@code driftRepair}, {@value #DRIFT_REPAIR} too. It writes to every
   * ConfigMap it watches: give it only an API server of the application's own, never a user's cluster.
   */
  public SampleController(
      ApiClient client,
      SharedInformerFactory factory,
      SharedIndexInformer<V1ConfigMap> informer,
      Duration resyncPeriod,
      WatchObserver observer,
      boolean driftRepair) {
    this.factory = factory;
    GenericKubernetesApi<V1ConfigMap, V1ConfigMapList> api = new GenericKubernetesApi<>(V1ConfigMap.class, V1ConfigMapList.class, "", "v1", "configmaps", client);
    ControllerManagerBuilder controllers =
        ControllerBuilder.controllerManagerBuilder(factory)
            .addController(controller(EVERY_UPDATE, informer, resyncPeriod, observer, false, new ConfigMapReconciler(informer, api, counter(EVERY_UPDATE))))
            .addController(controller(RV_FILTER, informer, resyncPeriod, observer, true, new ConfigMapReconciler(informer, api, counter(RV_FILTER))));
    if (driftRepair) {
      controllers.addController(controller(DRIFT_REPAIR, informer, resyncPeriod, observer, false, new LogLevelReconciler(api, counter(DRIFT_REPAIR))));
    }
    this.manager = controllers.build();
  }

  private Controller controller(
      String name,
      SharedIndexInformer<V1ConfigMap> informer,
      Duration resyncPeriod,
      WatchObserver observer,
      boolean skipUnchangedVersions,
      Reconciler reconciler) {
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
        .withReconciler(reconciler)
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

  /** The reconciles of all the controllers so far. */
  public long reconciles() {
    return reconciles.values().stream().mapToLong(AtomicLong::get).sum();
  }

  /** The reconciles of one controller ({@value #EVERY_UPDATE}, {@value #RV_FILTER} or {@value #DRIFT_REPAIR}) so far. */
  public long reconciles(String controller) {
    AtomicLong counted = reconciles.get(controller);
    return counted == null ? 0 : counted.get();
  }

  private AtomicLong counter(String controller) {
    return reconciles.computeIfAbsent(controller, name -> new AtomicLong());
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
    private final AtomicLong reconciles;

    ConfigMapReconciler(SharedIndexInformer<V1ConfigMap> informer, GenericKubernetesApi<V1ConfigMap, V1ConfigMapList> api, AtomicLong reconciles) {
      this.informer = informer;
      this.api = api;
      this.reconciles = reconciles;
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

  /**
   * Reads the object from the API server, not from the informer's cache (the cache may hold a copy
   * from before a lost event), sets {@value #LOG_LEVEL} to {@value #DESIRED_LOG_LEVEL} and writes it
   * back, as controllers that apply their desired state on every reconcile do. The server answers a
   * write that changes nothing with the same resourceVersion and no event; one that repairs drift
   * with a new version, and every watch hears of it.
   */
  private final class LogLevelReconciler implements Reconciler {
    private final GenericKubernetesApi<V1ConfigMap, V1ConfigMapList> api;
    private final AtomicLong reconciles;

    LogLevelReconciler(GenericKubernetesApi<V1ConfigMap, V1ConfigMapList> api, AtomicLong reconciles) {
      this.api = api;
      this.reconciles = reconciles;
    }

    @Override
    public Result reconcile(Request request) {
      reconciles.incrementAndGet();
      V1ConfigMap current = api.get(request.getNamespace(), request.getName()).getObject();
      if (current != null) {
        Map<String, String> data = current.getData() == null ? new LinkedHashMap<>() : new LinkedHashMap<>(current.getData());
        data.put(LOG_LEVEL, DESIRED_LOG_LEVEL);
        // With the version read: a change since then is refused (409), and its own event comes to reconcile it.
        api.update(current.data(data));
      }
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
