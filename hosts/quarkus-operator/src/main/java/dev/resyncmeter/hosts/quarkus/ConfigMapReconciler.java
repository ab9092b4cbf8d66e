package dev.resyncmeter.hosts.quarkus;

import static dev.resyncmeter.hosts.quarkus.Counts.series;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
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
 * <p>Every reconcile reads its ConfigMap from the API server. A reconcile of a change also reads the
 * copy of it of the same name in {@link #SEEN_NAMESPACE}, which nothing watches, and writes what it saw
 * to it: a create when there is none yet, else a JSON merge patch against the copy as read. The first
 * periodic reconcile of each ConfigMap writes the copy back as read (an update that changes nothing);
 * the other periodic reconciles and the requeued ones write nothing.
 *
 * <p>It counts each reconcile's effect as its writes' answers show it: {@code none} without a write,
 * {@code changed} for a create or a write answered with another resource version than the copy had,
 * {@code unchanged} for a write answered with the same one. The operator is no {@code Cleaner} and
 * answers {@code UpdateControl.noUpdate()}, so JOSDK writes nothing of its own for it.
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
    String effect = "none";
    try {
      effect = readAndWrite(configMap, trigger, periodicReconciles(name) == 0);
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
      counts.increment(series("controller_reconcile_effect_total", "controller", NAME, "effect", effect, "trigger", trigger));
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

  /**
   * The reconcile's reads and writes ({@code firstPeriodic}: its first periodic reconcile of this
   * ConfigMap, if periodic); returns its effect.
   */
  private String readAndWrite(ConfigMap configMap, String trigger, boolean firstPeriodic) {
    TRIGGER_ON_THREAD.set(trigger);
    try {
      String name = configMap.getMetadata().getName();
      client.configMaps().inNamespace(configMap.getMetadata().getNamespace()).withName(name).get();
      if (!trigger.equals("change") && !(trigger.equals("periodic") && firstPeriodic)) {
        return "none";
      }
      ConfigMap copy = client.configMaps().inNamespace(SEEN_NAMESPACE).withName(name).get();
      if (trigger.equals("periodic")) {
        // written by the reconcile of its change, which comes first
        return effect(copy, client.resource(copy).update());
      }
      String version = configMap.getMetadata().getResourceVersion();
      if (copy == null) {
        client.resource(new ConfigMapBuilder().withNewMetadata().withName(name).endMetadata().addToData("resourceVersion", version).build())
            .inNamespace(SEEN_NAMESPACE)
            .create();
        return "changed";
      }
      return effect(copy, client.resource(copy).patch(PatchContext.of(PatchType.JSON_MERGE), "{\"data\":{\"resourceVersion\":\"" + version + "\"}}"));
    } finally {
      TRIGGER_ON_THREAD.remove();
    }
  }

  /** A write's effect, as its answer shows: changed when the copy came back with another resource version. */
  private static String effect(ConfigMap before, ConfigMap answer) {
    return before.getMetadata().getResourceVersion().equals(answer.getMetadata().getResourceVersion()) ? "unchanged" : "changed";
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
