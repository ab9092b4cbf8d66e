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
import java.util.List;
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
 * <p>Every reconcile reads its ConfigMap from the API server. A reconcile of a change also reads the
 * copy of it of the same name in {@link #SEEN_NAMESPACE}, which nothing watches (so no write there
 * makes a reconcile), and writes what it saw to it (a merge patch, or a create when the copy does not
 * exist yet). The first periodic reconcile of each of the scenario's ConfigMaps reads the copy and
 * writes it as its name says: {@code plain} a merge patch with the copy's resource version that
 * changes it, {@code reschedule-once} an update of the copy as read (which changes nothing), {@code
 * fail-once} a merge patch with the version that changes nothing, {@code slow} an update with a stale
 * version (409 Conflict). The other periodic reconciles, the retries and the reschedules write nothing.
 *
 * <p>Each reconcile's effect is what its writes changed by the server's answers: {@code none} without a
 * write, {@code changed} for a create, or an update or patch answered with another resource version
 * than the copy had, else {@code unchanged}. JOSDK makes no writes of its own for this operator (no
 * finalizer: it is no {@code Cleaner}; no status: {@code UpdateControl.noUpdate()}); its client's
 * interceptor counts any write made outside the reconciler's own code ({@link RequestCounts}).
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
  /** What each kind of write got from the mock server, and the effect counted. */
  final java.util.Set<String> outcomes = ConcurrentHashMap.newKeySet();
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
    String effect = "none";
    try {
      effect = readAndWrite(configMap, trigger, periodicReconciles(name) == 0);
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
        truth.increment(series("controller_reconcile_effect_total", "controller", NAME, "effect", effect, "trigger", trigger));
        truth.increment("reconciles_of{" + NAME + "}");
      }
    }
  }

  private static final ThreadLocal<String> TRIGGER_ON_THREAD = new ThreadLocal<>();

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
      boolean writesOnFirstPeriodic = List.of("plain", "reschedule-once", "fail-once", "slow").contains(name);
      if (!trigger.equals("change") && !(trigger.equals("periodic") && firstPeriodic && writesOnFirstPeriodic)) {
        return outcome(name, trigger, "no write", "none");
      }
      ConfigMap seen = client.configMaps().inNamespace(SEEN_NAMESPACE).withName(name).get();
      if (trigger.equals("change")) {
        String version = configMap.getMetadata().getResourceVersion();
        if (seen == null) {
          client.resource(new ConfigMapBuilder().withNewMetadata().withName(name).endMetadata().addToData("resourceVersion", version).build())
              .inNamespace(SEEN_NAMESPACE)
              .create();
          return outcome(name, trigger, "create ok", "changed");
        }
        return mergePatch(seen, trigger, "{\"data\":{\"resourceVersion\":\"" + version + "\"}}");
      }
      if (seen == null) {
        throw new IllegalStateException("the copy of " + name + " was not written by its first reconcile");
      }
      String seenVersion = seen.getMetadata().getResourceVersion();
      return switch (name) {
        case "plain" -> mergePatch(seen, trigger, "{\"metadata\":{\"resourceVersion\":\"" + seenVersion + "\"},\"data\":{\"periodic\":\"written\"}}");
        case "fail-once" -> mergePatch(seen, trigger, "{\"metadata\":{\"resourceVersion\":\"" + seenVersion + "\"},\"data\":{\"resourceVersion\":\"" + seen.getData().get("resourceVersion") + "\"}}");
        case "reschedule-once" -> update(seen, trigger);
        default -> {
          // slow: a write based on a version long gone, which the server refuses
          ConfigMap stale = new ConfigMapBuilder(seen).editMetadata().withResourceVersion("1").endMetadata().addToData("lost", "update").build();
          yield update(stale, trigger);
        }
      };
    } finally {
      TRIGGER_ON_THREAD.remove();
    }
  }

  /** A JSON merge patch of the copy, against the copy as read: changed if answered with another version. */
  private String mergePatch(ConfigMap seen, String trigger, String patch) {
    String before = seen.getMetadata().getResourceVersion();
    ConfigMap after = client.resource(seen).patch(PatchContext.of(PatchType.JSON_MERGE), patch);
    boolean same = before.equals(after.getMetadata().getResourceVersion());
    return outcome(seen.getMetadata().getName(), trigger, "patch ok " + (same ? "same version" : "new version"), same ? "unchanged" : "changed");
  }

  /** An update of the copy as given: changed if answered with another version than the one sent, unchanged if refused. */
  private String update(ConfigMap sent, String trigger) {
    String before = sent.getMetadata().getResourceVersion();
    try {
      ConfigMap after = client.resource(sent).update();
      boolean same = before.equals(after.getMetadata().getResourceVersion());
      return outcome(sent.getMetadata().getName(), trigger, "update ok " + (same ? "same version" : "new version"), same ? "unchanged" : "changed");
    } catch (KubernetesClientException e) {
      if (e.getCode() < 400) {
        throw e;
      }
      return outcome(sent.getMetadata().getName(), trigger, "update " + e.getCode(), "unchanged");
    }
  }

  private String outcome(String name, String trigger, String answer, String effect) {
    outcomes.add("WRITE " + name + " " + trigger + ": " + answer + " -> " + effect);
    return effect;
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
