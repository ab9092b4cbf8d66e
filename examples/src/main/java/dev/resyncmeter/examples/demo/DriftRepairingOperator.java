package dev.resyncmeter.examples.demo;

import dev.resyncmeter.examples.josdk.ConfigMapOperator;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.MaxReconciliationInterval;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.retry.GradualRetry;
import java.util.concurrent.TimeUnit;

/**
 * The JOSDK demo's operator: {@link ConfigMapOperator}'s reconcile (under its name, with its timer and
 * retry), then a check of what it wrote: the ConfigMap of the same name in {@link
 * ConfigMapOperator#SEEN_NAMESPACE} must hold the resource version of the one reconciled. Nothing
 * watches that namespace, so when it drifts (the demo changes it now and then, as someone's edit
 * would) no event comes: only the timer's periodic reconciles find it, and they write it back. Most
 * of them find nothing and change nothing. One ConfigMap, {@value #ECHOED}, it reconciles itself
 * instead: it records the revision it reconciled in it, so each of its writes comes back (an echo).
 *
 * <p>A wrapper, not a change to {@link ConfigMapOperator}: the JOSDK scenario counts that one's
 * requests exactly.
 */
@ControllerConfiguration(
    name = ConfigMapOperator.NAME,
    // as ConfigMapOperator's: the mock server sets a generation on every kind
    generationAwareEventProcessing = false,
    maxReconciliationInterval = @MaxReconciliationInterval(interval = 2, timeUnit = TimeUnit.SECONDS))
@GradualRetry(maxAttempts = 3, initialInterval = 300)
final class DriftRepairingOperator implements Reconciler<ConfigMap> {

  static final String SEEN_KEY = "resourceVersion";
  /** The ConfigMap whose reconcile writes it, and so gets its write back. */
  static final String ECHOED = "echoed";
  static final String RECORDED_KEY = "reconciled-revision";

  private final KubernetesClient client;
  private final ConfigMapOperator operator;

  DriftRepairingOperator(KubernetesClient client) {
    this.client = client;
    this.operator = new ConfigMapOperator(client, null);
  }

  @Override
  public UpdateControl<ConfigMap> reconcile(ConfigMap configMap, Context<ConfigMap> context) throws Exception {
    String name = configMap.getMetadata().getName();
    if (name.equals(ECHOED)) {
      return recordRevision(configMap);
    }
    UpdateControl<ConfigMap> control = operator.reconcile(configMap, context);
    String version = configMap.getMetadata().getResourceVersion();
    ConfigMap seen = client.configMaps().inNamespace(ConfigMapOperator.SEEN_NAMESPACE).withName(name).get();
    // ConfigMapOperator writes it on every change of its ConfigMap, before this check: a difference is drift.
    if (seen != null && !version.equals(seen.getData().get(SEEN_KEY))) {
      client.configMaps().inNamespace(ConfigMapOperator.SEEN_NAMESPACE).withName(name)
          .edit(c -> new ConfigMapBuilder(c).addToData(SEEN_KEY, version).build());
    }
    return control;
  }

  /**
   * {@value #ECHOED}: records the revision it reconciled in the ConfigMap itself, with the client inside
   * reconcile (not through {@code UpdateControl}, whose event JOSDK filters), and only when it differs.
   * Its write's event comes back: one more reconcile, an echo, which finds the revision recorded and
   * writes nothing.
   */
  private UpdateControl<ConfigMap> recordRevision(ConfigMap configMap) {
    String revision = configMap.getData().get("revision");
    if (revision != null && !revision.equals(configMap.getData().get(RECORDED_KEY))) {
      client.resource(configMap).patch(PatchContext.of(PatchType.JSON_MERGE), "{\"data\":{\"" + RECORDED_KEY + "\":\"" + revision + "\"}}");
    }
    return UpdateControl.noUpdate();
  }

  /** The operator as {@link ConfigMapOperator#operator} configures it, with this reconciler in it. */
  static Operator operator(KubernetesClient client, String namespace) {
    Operator operator =
        new Operator(
            o ->
                o.withKubernetesClient(client)
                    .withCloseClientOnStop(false)
                    .withUseSSAToPatchPrimaryResource(false)
                    .withSSABasedCreateUpdateMatchForDependentResources(false));
    operator.register(new DriftRepairingOperator(client), o -> o.settingNamespace(namespace));
    return operator;
  }
}
