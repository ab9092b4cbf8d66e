package dev.resyncmeter.examples.josdk;

import dev.resyncmeter.examples.fabric8.MockApiServer;
import dev.resyncmeter.examples.truth.EchoTruth;
import dev.resyncmeter.examples.truth.Truth;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.MaxReconciliationInterval;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Echoes with JOSDK on fabric8's mock server: the operator {@value #NAME} over the ConfigMaps of the
 * namespace {@value #NAMESPACE} (no timer within the run: its maximum interval is an hour).
 *
 * <ul>
 *   <li>{@code client-write}: its reconcile writes it with the client, inside {@code reconcile} (a
 *       merge patch, when the data it adds is missing). Its echo comes back as an event: one more
 *       reconcile, on {@code own_write}, which writes nothing: it settles.
 *   <li>{@code update-control}: its reconcile returns {@code UpdateControl.patchResource} with a label
 *       added: JOSDK writes, and filters the event of its own write: no second reconcile. The update
 *       call still reaches JOSDK's event source, and is an echo of a write of this process.
 * </ul>
 *
 * <p>An observer of its own (a fabric8 informer of the same namespace, {@link EchoObserver}) records
 * each update call, which JOSDK's event source gets as well; the reconciler records the version each
 * reconcile saw. Echoes are told after the run ({@link EchoTruth}): a reconcile's trigger is
 * {@code change} for its first, else {@code own_write} when the version it saw is the answer to a
 * write of this process, else {@code change}. JOSDK's own write is answered with the version the
 * object has at the end (nothing else writes it). Prints {@code WRITE}, {@code UPDATE}, {@code truth}
 * lines and {@code SCENARIO DONE}, then waits for its standard input to close.
 */
public final class JosdkEchoScenario {

  static final String NAMESPACE = "josdk-echo";
  static final String NAME = "echo-operator";
  static final String KIND = "ConfigMap";
  static final String OBSERVER = "JosdkEchoScenario$EchoObserver";
  static final String CLIENT_WRITE = "client-write";
  static final String UPDATE_CONTROL = "update-control";
  static final String CONTROLLED = "controlled";

  private JosdkEchoScenario() {}

  public static void main(String[] args) throws Exception {
    EchoTruth echoes = new EchoTruth();
    Truth truth = new Truth();
    try (MockApiServer server = MockApiServer.start()) {
      run(server.client(), echoes);
    }
    echoes.countInto(truth, false);
    echoes.transcript().forEach(System.out::println);
    System.out.print(truth.render());
    System.out.println("SCENARIO DONE");
    System.out.flush();
    while (System.in.read() >= 0) {
      // stay up for the scrape until the test closes our input
    }
    // the client's and the operator's pools may leave threads that are not daemons
    System.exit(0);
  }

  static void run(KubernetesClient client, EchoTruth echoes) throws Exception {
    for (String name : List.of(CLIENT_WRITE, UPDATE_CONTROL)) {
      client.resource(new ConfigMapBuilder().withNewMetadata().withName(name).endMetadata().withData(Map.of("k", "0")).build()).inNamespace(NAMESPACE).create();
    }
    SharedIndexInformer<ConfigMap> observer = client.configMaps().inNamespace(NAMESPACE).inform(new EchoObserver(echoes), 0);
    EchoOperator reconciler = new EchoOperator(client, echoes);
    Operator operator =
        new Operator(o -> o.withKubernetesClient(client).withCloseClientOnStop(false).withUseSSAToPatchPrimaryResource(false).withSSABasedCreateUpdateMatchForDependentResources(false));
    operator.register(reconciler, o -> o.settingNamespace(NAMESPACE));
    operator.start();
    try {
      await("the echo's reconcile of " + CLIENT_WRITE, () -> reconciler.reconciles(CLIENT_WRITE) == 2);
      await("JOSDK's write of " + UPDATE_CONTROL, () -> client.configMaps().inNamespace(NAMESPACE).withName(UPDATE_CONTROL).get().getMetadata().getLabels().containsKey(CONTROLLED));
      ConfigMap controlled = client.configMaps().inNamespace(NAMESPACE).withName(UPDATE_CONTROL).get();
      String uid = controlled.getMetadata().getUid();
      String version = controlled.getMetadata().getResourceVersion();
      await("the update of JOSDK's write", () -> echoes.seen(uid, version));
      // its event is JOSDK's own: no reconcile comes for it, and none for client-write's settled state
      Thread.sleep(1_000);
      // nothing but JOSDK wrote update-control after it was created: its version is JOSDK's write's answer
      echoes.answered("UpdateControl.patchResource (JOSDK's write)", UPDATE_CONTROL, uid, reconciler.versionSeen(UPDATE_CONTROL), version);
    } finally {
      operator.stop();
      observer.stop();
    }
    System.out.println("RECONCILES " + CLIENT_WRITE + " " + reconciler.reconciles(CLIENT_WRITE) + ", " + UPDATE_CONTROL + " " + reconciler.reconciles(UPDATE_CONTROL));
  }

  /**
   * Records each update call, as JOSDK's event source of the same namespace gets it too (both see every
   * change of the scenario's objects, which exist before either starts).
   */
  static final class EchoObserver implements ResourceEventHandler<ConfigMap> {
    private final EchoTruth echoes;

    EchoObserver(EchoTruth echoes) {
      this.echoes = echoes;
    }

    @Override
    public void onAdd(ConfigMap object) {}

    @Override
    public void onUpdate(ConfigMap oldObject, ConfigMap newObject) {
      String uid = newObject.getMetadata().getUid();
      String oldVersion = oldObject.getMetadata().getResourceVersion();
      String newVersion = newObject.getMetadata().getResourceVersion();
      echoes.updated(OBSERVER, KIND, uid, oldVersion, newVersion);
      echoes.updated(NAME, KIND, uid, oldVersion, newVersion);
    }

    @Override
    public void onDelete(ConfigMap object, boolean deletedFinalStateUnknown) {}
  }

  /** The operator: a write with the client inside reconcile for one ConfigMap, one through UpdateControl for the other. */
  @ControllerConfiguration(
      name = NAME,
      generationAwareEventProcessing = false,
      maxReconciliationInterval = @MaxReconciliationInterval(interval = 1, timeUnit = TimeUnit.HOURS))
  public static final class EchoOperator implements Reconciler<ConfigMap> {
    private final KubernetesClient client;
    private final EchoTruth echoes;
    private final Map<String, String> versionSeen = new ConcurrentHashMap<>();
    private final Map<String, Integer> reconciles = new ConcurrentHashMap<>();

    EchoOperator(KubernetesClient client, EchoTruth echoes) {
      this.client = client;
      this.echoes = echoes;
    }

    @Override
    public UpdateControl<ConfigMap> reconcile(ConfigMap configMap, Context<ConfigMap> context) {
      String name = configMap.getMetadata().getName();
      String uid = configMap.getMetadata().getUid();
      String version = configMap.getMetadata().getResourceVersion();
      String previous = versionSeen.put(name, version);
      // what brought it, told after the run: its first reconcile is an add's, a later one an update's
      EchoTruth.Add event = new EchoTruth.Add(NAME, previous == null ? null : new EchoTruth.Update(NAME, KIND, uid, previous, version));
      List<String> verbs = new ArrayList<>();
      String effect = "none";
      UpdateControl<ConfigMap> control = UpdateControl.noUpdate();
      if (name.equals(CLIENT_WRITE) && !configMap.getData().containsKey("written")) {
        verbs.add("patch");
        ConfigMap answer = client.resource(configMap).patch(PatchContext.of(PatchType.JSON_MERGE), "{\"data\":{\"written\":\"by-reconcile\"}}");
        echoes.answered("merge patch inside reconcile", name, uid, version, answer.getMetadata().getResourceVersion());
        effect = "changed";
      } else if (name.equals(UPDATE_CONTROL) && !configMap.getMetadata().getLabels().containsKey(CONTROLLED)) {
        control = UpdateControl.patchResource(new ConfigMapBuilder(configMap).editMetadata().addToLabels(CONTROLLED, "true").endMetadata().build());
      }
      echoes.reconciled(NAME, name, List.of(event), "success", effect, verbs);
      reconciles.merge(name, 1, Integer::sum);
      return control;
    }

    int reconciles(String name) {
      return reconciles.getOrDefault(name, 0);
    }

    String versionSeen(String name) {
      return versionSeen.get(name);
    }
  }

  static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("timed out waiting for " + what);
      }
      Thread.sleep(20);
    }
  }
}
