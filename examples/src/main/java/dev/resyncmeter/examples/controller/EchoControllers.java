package dev.resyncmeter.examples.controller;

import io.kubernetes.client.custom.V1Patch;
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
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Two client-java controllers whose writes come back to them (echoes), over one informer of their own
 * namespace, resync off, each enqueuing every add and update:
 *
 * <ul>
 *   <li>{@value #STAMPER} stamps the time on {@value #STAMPED} on every reconcile, as controllers that
 *       write a "last reconciled" field do: each stamp is a change, its watch event brings the next
 *       reconcile, which stamps again. A loop, here bounded: it stops writing after {@value #STAMP_BOUND}
 *       stamps, so the demo gets quiet.
 *   <li>{@value #SETTLER} labels {@value #SETTLED} {@value #LABEL}{@code =true} only when the label is
 *       missing: its write's echo brings one more reconcile, which finds the label and writes nothing.
 *       It settles after one echo.
 * </ul>
 *
 * Each also reconciles the other's ConfigMap on the other's echoes, and writes nothing there. They
 * write: give them only an API server of the application's own, never a user's cluster.
 */
public final class EchoControllers implements AutoCloseable {

  public static final String STAMPER = "timestamp-stamper";
  public static final String SETTLER = "label-settler";
  public static final String STAMPED = "stamped";
  public static final String SETTLED = "settled";
  public static final String LABEL = "settled";
  /** The stamper's bound: it stamps {@value #STAMPED} this many times, then only reads it. */
  public static final int STAMP_BOUND = 5;

  private final ControllerManager manager;
  private final ExecutorService managerThread = Executors.newSingleThreadExecutor(SampleController.daemon("echo-controller-manager"));

  /** Both controllers over the ConfigMaps of {@code namespace}, through {@code client}. */
  public EchoControllers(ApiClient client, String namespace) {
    SharedInformerFactory factory = new SharedInformerFactory(client);
    GenericKubernetesApi<V1ConfigMap, V1ConfigMapList> api = new GenericKubernetesApi<>(V1ConfigMap.class, V1ConfigMapList.class, "", "v1", "configmaps", client);
    SharedIndexInformer<V1ConfigMap> informer = factory.sharedIndexInformerFor(api, V1ConfigMap.class, 0, namespace);
    manager =
        ControllerBuilder.controllerManagerBuilder(factory)
            .addController(controller(factory, informer, STAMPER, new Stamper(api)))
            .addController(controller(factory, informer, SETTLER, new Settler(api)))
            .build();
  }

  private static Controller controller(SharedInformerFactory factory, SharedIndexInformer<V1ConfigMap> informer, String name, Reconciler reconciler) {
    return ControllerBuilder.defaultBuilder(factory)
        .watch(queue -> ControllerBuilder.controllerWatchBuilder(V1ConfigMap.class, queue).build())
        .withReconciler(reconciler)
        .withReadyFunc(informer::hasSynced)
        .withWorkerCount(1)
        .withName(name)
        .build();
  }

  public void start() {
    managerThread.submit(manager::run);
  }

  @Override
  public void close() {
    manager.shutdown();
    managerThread.shutdownNow();
  }

  /** Stamps the time on {@value #STAMPED} on every reconcile, until it stamped it {@value #STAMP_BOUND} times. */
  private static final class Stamper implements Reconciler {
    private final GenericKubernetesApi<V1ConfigMap, V1ConfigMapList> api;

    Stamper(GenericKubernetesApi<V1ConfigMap, V1ConfigMapList> api) {
      this.api = api;
    }

    @Override
    public Result reconcile(Request request) {
      V1ConfigMap current = api.get(request.getNamespace(), request.getName()).getObject();
      if (current == null || !request.getName().equals(STAMPED)) {
        return new Result(false);
      }
      Map<String, String> data = current.getData() == null ? new LinkedHashMap<>() : new LinkedHashMap<>(current.getData());
      int stamps = Integer.parseInt(data.getOrDefault("stamps", "0"));
      if (stamps < STAMP_BOUND) {
        data.put("stamps", Integer.toString(stamps + 1));
        data.put("last-reconciled", Instant.now().toString());
        api.update(current.data(data));
      }
      return new Result(false);
    }
  }

  /** Labels {@value #SETTLED} when the label is missing, and writes nothing else. */
  private static final class Settler implements Reconciler {
    private final GenericKubernetesApi<V1ConfigMap, V1ConfigMapList> api;

    Settler(GenericKubernetesApi<V1ConfigMap, V1ConfigMapList> api) {
      this.api = api;
    }

    @Override
    public Result reconcile(Request request) {
      V1ConfigMap current = api.get(request.getNamespace(), request.getName()).getObject();
      if (current == null || !request.getName().equals(SETTLED)) {
        return new Result(false);
      }
      Map<String, String> labels = current.getMetadata().getLabels();
      if (labels == null || !"true".equals(labels.get(LABEL))) {
        api.patch(request.getNamespace(), request.getName(), V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, new V1Patch("{\"metadata\":{\"labels\":{\"" + LABEL + "\":\"true\"}}}"));
      }
      return new Result(false);
    }
  }
}
