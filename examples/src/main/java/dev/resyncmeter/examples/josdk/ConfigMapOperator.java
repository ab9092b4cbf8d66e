package dev.resyncmeter.examples.josdk;

import static dev.resyncmeter.examples.truth.Truth.series;

import dev.resyncmeter.examples.truth.Truth;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.MaxReconciliationInterval;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.retry.GradualRetry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A small JOSDK operator over ConfigMaps, reconciled at least every two seconds
 * ({@code maxReconciliationInterval}), with a short retry. A few ConfigMaps behave specially, by name:
 * {@code reschedule-once} asks for a reschedule on its first reconcile, {@code fail-once} throws on
 * its first, and {@code slow} blocks the reconcile that first sees its {@code phase=1} until
 * {@link #releaseSlow} (so a change can arrive while it runs).
 *
 * <p>Every reconcile reads its ConfigMap from the API server; a reconcile of a change also writes
 * what it saw to a ConfigMap of the same name in {@link #SEEN_NAMESPACE}, which nothing watches (a
 * patch, and a create when that one does not exist yet).
 *
 * <p>It counts every reconcile itself, by what it can tell: {@code change} when the ConfigMap's
 * resource version differs from the one it last reconciled, else {@code requeue} when its previous
 * reconcile of it threw or asked for a reschedule, else {@code periodic}. While it reads and writes,
 * {@link #triggerOnThisThread} tells its client's interceptor ({@link RequestCounts}) which trigger
 * the requests it sees are for.
 */
@ControllerConfiguration(
    name = ConfigMapOperator.NAME,
    // the mock server sets a generation on every kind: let every change through, as for a real ConfigMap
    generationAwareEventProcessing = false,
    maxReconciliationInterval = @MaxReconciliationInterval(interval = 2, timeUnit = TimeUnit.SECONDS))
@GradualRetry(maxAttempts = 3, initialInterval = 300)
public final class ConfigMapOperator implements Reconciler<ConfigMap> {

  public static final String NAME = "configmap-operator";
  public static final String SEEN_NAMESPACE = "seen-by-configmap-operator";

  private final Truth truth;
  private final KubernetesClient client;
  private final Map<String, String> lastVersion = new ConcurrentHashMap<>();
  private final Map<String, String> lastResult = new ConcurrentHashMap<>();
  private final Map<String, Integer> periodic = new ConcurrentHashMap<>();
  private final Map<String, Integer> reconciles = new ConcurrentHashMap<>();
  private final CountDownLatch slowStarted = new CountDownLatch(1);
  private final CountDownLatch slowReleased = new CountDownLatch(1);
  private volatile boolean slowDone;

  /** {@code truth} may be null: the demo counts nothing itself. */
  public ConfigMapOperator(KubernetesClient client, Truth truth) {
    this.client = client;
    this.truth = truth;
  }

  @Override
  public UpdateControl<ConfigMap> reconcile(ConfigMap configMap, Context<ConfigMap> context) throws Exception {
    String name = configMap.getMetadata().getName();
    String version = configMap.getMetadata().getResourceVersion();
    String previous = lastResult.get(name);
    String trigger =
        !version.equals(lastVersion.get(name)) ? "change" : "error".equals(previous) || "requeue".equals(previous) ? "requeue" : "periodic";
    lastVersion.put(name, version);
    String result = "success";
    try {
      readAndWrite(configMap, trigger);
      boolean first = reconciles.merge(name, 1, Integer::sum) == 1;
      Thread.sleep(5);
      if (name.equals("fail-once") && first) {
        result = "error";
        throw new IllegalStateException("fail-once fails its first reconcile");
      }
      if (name.equals("slow") && "1".equals(configMap.getData().get("phase")) && !slowDone) {
        slowDone = true;
        slowStarted.countDown();
        if (!slowReleased.await(30, TimeUnit.SECONDS)) {
          throw new IllegalStateException("slow was never released");
        }
      }
      if (name.equals("reschedule-once") && first) {
        result = "requeue";
        return UpdateControl.<ConfigMap>noUpdate().rescheduleAfter(300);
      }
      return UpdateControl.noUpdate();
    } finally {
      if (trigger.equals("periodic")) {
        periodic.merge(name, 1, Integer::sum);
      }
      lastResult.put(name, result);
      if (truth != null) {
        truth.increment(series("controller_reconcile_total", "controller", NAME, "result", result, "trigger", trigger));
        truth.increment(series("controller_reconcile_duration_seconds_count", "controller", NAME, "trigger", trigger));
        truth.increment("reconciles_of{" + NAME + "}");
      }
    }
  }

  private static final ThreadLocal<String> TRIGGER_ON_THREAD = new ThreadLocal<>();

  /** The trigger of the reconcile reading or writing on this thread, or null. */
  static String triggerOnThisThread() {
    return TRIGGER_ON_THREAD.get();
  }

  private void readAndWrite(ConfigMap configMap, String trigger) {
    TRIGGER_ON_THREAD.set(trigger);
    try {
      String name = configMap.getMetadata().getName();
      client.configMaps().inNamespace(configMap.getMetadata().getNamespace()).withName(name).get();
      if (!trigger.equals("change")) {
        return;
      }
      String version = configMap.getMetadata().getResourceVersion();
      try {
        client.configMaps().inNamespace(SEEN_NAMESPACE).withName(name).patch(PatchContext.of(PatchType.JSON_MERGE), "{\"data\":{\"resourceVersion\":\"" + version + "\"}}");
      } catch (KubernetesClientException e) {
        if (e.getCode() != 404) {
          throw e;
        }
        client.resource(new ConfigMapBuilder().withNewMetadata().withName(name).endMetadata().addToData("resourceVersion", version).build())
            .inNamespace(SEEN_NAMESPACE)
            .create();
      }
    } finally {
      TRIGGER_ON_THREAD.remove();
    }
  }

  /** The operator as the samples run it: the mock server's client, no server-side apply (it answers 415). */
  public static Operator operator(KubernetesClient client, ConfigMapOperator reconciler, String namespace) {
    return operator(client, reconciler, namespace, null);
  }

  /** The operator with another maximum reconciliation interval than its two seconds, if not null. */
  static Operator operator(KubernetesClient client, ConfigMapOperator reconciler, String namespace, java.time.Duration maxInterval) {
    Operator operator =
        new Operator(
            o ->
                o.withKubernetesClient(client)
                    .withCloseClientOnStop(false)
                    .withUseSSAToPatchPrimaryResource(false)
                    .withSSABasedCreateUpdateMatchForDependentResources(false));
    operator.register(
        reconciler,
        o -> {
          o.settingNamespace(namespace);
          if (maxInterval != null) {
            o.withReconciliationMaxInterval(maxInterval);
          }
        });
    return operator;
  }

  /** Periodic reconciles of {@code name} so far. */
  int periodicReconciles(String name) {
    return periodic.getOrDefault(name, 0);
  }

  int reconciles(String name) {
    return reconciles.getOrDefault(name, 0);
  }

  String lastResult(String name) {
    return lastResult.get(name);
  }

  boolean awaitSlowStarted(long seconds) throws InterruptedException {
    return slowStarted.await(seconds, TimeUnit.SECONDS);
  }

  void releaseSlow() {
    slowReleased.countDown();
  }
}
