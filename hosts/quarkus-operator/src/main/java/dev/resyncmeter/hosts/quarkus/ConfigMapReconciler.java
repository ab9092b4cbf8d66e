package dev.resyncmeter.hosts.quarkus;

import static dev.resyncmeter.hosts.quarkus.Counts.series;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.MaxReconciliationInterval;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.retry.GradualRetry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A small operator over the ConfigMaps of one namespace, reconciled at least every two seconds
 * ({@code maxReconciliationInterval}), with a short retry; the Quarkus extension registers it. Two
 * ConfigMaps behave specially, by name: {@code reschedule-once} asks for a reschedule on its first
 * reconcile, {@code fail-once} throws on its first, so that reconciles after a requeue happen.
 *
 * <p>Every reconcile reads its ConfigMap from the API server; a reconcile of a change also writes
 * what it saw to a ConfigMap of the same name in {@link #SEEN_NAMESPACE}, which nothing watches (a
 * JSON merge patch, and a create when that one does not exist yet).
 *
 * <p>It counts every reconcile itself, by what it can tell: {@code change} when the ConfigMap's
 * resource version differs from the one it last reconciled, else {@code requeue} when its previous
 * reconcile of it threw or asked for a reschedule, else {@code periodic}. While it reads and writes,
 * {@link #triggerOnThisThread} tells the client's interceptor ({@link RequestCounts}) which trigger
 * the requests it sees are for.
 */
@ControllerConfiguration(
    name = ConfigMapReconciler.NAME,
    // the mock server sets a generation on every kind: let every change through, as for a real ConfigMap
    generationAwareEventProcessing = false,
    maxReconciliationInterval = @MaxReconciliationInterval(interval = 2, timeUnit = TimeUnit.SECONDS),
    informer = @Informer(namespaces = QuarkusOperatorHost.NAMESPACE))
@GradualRetry(maxAttempts = 3, initialInterval = 300)
public class ConfigMapReconciler implements Reconciler<ConfigMap> {

  public static final String NAME = "quarkus-operator";
  public static final String SEEN_NAMESPACE = "seen-by-quarkus-operator";

  private static final ThreadLocal<String> TRIGGER_ON_THREAD = new ThreadLocal<>();

  private final KubernetesClient client;
  private final Counts counts;
  private final Map<String, String> lastVersion = new ConcurrentHashMap<>();
  private final Map<String, String> lastResult = new ConcurrentHashMap<>();
  private final Map<String, Integer> reconciles = new ConcurrentHashMap<>();
  private final Map<String, Integer> changes = new ConcurrentHashMap<>();
  private final Map<String, Integer> periodic = new ConcurrentHashMap<>();

  public ConfigMapReconciler(KubernetesClient client, Counts counts) {
    this.client = client;
    this.counts = counts;
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
      if (name.equals("fail-once") && first) {
        result = "error";
        throw new IllegalStateException("fail-once fails its first reconcile");
      }
      if (name.equals("reschedule-once") && first) {
        result = "requeue";
        return UpdateControl.<ConfigMap>noUpdate().rescheduleAfter(300);
      }
      return UpdateControl.noUpdate();
    } finally {
      counts.increment(series("controller_reconcile_total", "controller", NAME, "result", result, "trigger", trigger));
      counts.increment(series("controller_reconcile_duration_seconds_count", "controller", NAME, "trigger", trigger));
      // the host waits on these: updated last, once the counts above are in
      if (trigger.equals("change")) {
        changes.merge(name, 1, Integer::sum);
      } else if (trigger.equals("periodic")) {
        periodic.merge(name, 1, Integer::sum);
      }
      lastResult.put(name, result);
    }
  }

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

  String lastResult(String name) {
    return lastResult.get(name);
  }

  int reconciles(String name) {
    return reconciles.getOrDefault(name, 0);
  }

  int changes(String name) {
    return changes.getOrDefault(name, 0);
  }

  int periodicReconciles(String name) {
    return periodic.getOrDefault(name, 0);
  }
}
