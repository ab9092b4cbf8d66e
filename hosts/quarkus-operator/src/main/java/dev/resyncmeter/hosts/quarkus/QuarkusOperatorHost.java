package dev.resyncmeter.hosts.quarkus;

import static dev.resyncmeter.hosts.quarkus.Counts.series;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.Utils;
import io.quarkus.runtime.QuarkusApplication;
import io.quarkus.runtime.annotations.QuarkusMain;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * The operator's run, printing the application's own counts: three ConfigMaps exist when the operator
 * starts ({@code plain}, {@code reschedule-once}, {@code fail-once}); once each has been reconciled
 * and the reschedule and the retry are done, {@code plain} changes once; then the operator runs until
 * every ConfigMap had two periodic reconciles (maximum interval 2 s), and stops. Prints {@code truth}
 * lines and {@code SCENARIO DONE}, then waits for its standard input to close.
 *
 * <p>The operator is started here ({@code quarkus.operator-sdk.start-operator=false}) rather than by
 * the extension at startup, so the ConfigMaps exist before its informer lists them and each is added
 * once. The API server is the one fabric8's own {@code KUBERNETES_MASTER} variable names.
 */
@QuarkusMain
public class QuarkusOperatorHost implements QuarkusApplication {

  static final String NAMESPACE = "quarkus-operator-scenario";
  static final List<String> NAMES = List.of("plain", "reschedule-once", "fail-once");

  @Inject KubernetesClient client;
  @Inject Operator operator;
  @Inject ConfigMapReconciler reconciler;
  @Inject Counts counts;

  @Override
  public int run(String... args) throws Exception {
    // what the test checks: fabric8 came through Quarkus's class loader, on its Vert.x HTTP client
    System.out.println("host fabric8 loader " + KubernetesClient.class.getClassLoader().getClass().getName());
    System.out.println("host http client " + client.getHttpClient().getClass().getName());
    System.out.println("host versions fabric8 " + io.fabric8.kubernetes.client.Version.clientVersion() + " josdk " + Utils.VERSION.getSdkVersion());
    for (String name : NAMES) {
      client.resource(new ConfigMapBuilder().withNewMetadata().withName(name).endMetadata().withData(Map.of("phase", "0")).build())
          .inNamespace(NAMESPACE)
          .create();
    }
    operator.start();
    try {
      await(
          "the first reconciles, the reschedule and the retry",
          () ->
              NAMES.stream().allMatch(n -> "success".equals(reconciler.lastResult(n)))
                  && reconciler.reconciles("reschedule-once") >= 2
                  && reconciler.reconciles("fail-once") >= 2);
      changeFromOutside("plain", "phase", "1");
      await("the reconcile of plain's change", () -> reconciler.changes("plain") == 2);
      await("two periodic reconciles of every ConfigMap", () -> NAMES.stream().allMatch(n -> reconciler.periodicReconciles(n) >= 2));
    } finally {
      // waits for a reconcile under way (quarkus.operator-sdk.termination-timeout), so none ends after the counts are printed
      operator.stop();
    }
    // the informer's notifications follow from what this application did: one add per ConfigMap, one update by its edit
    counts.set(series("informer_notifications_total", "handler", ConfigMapReconciler.NAME, "kind", "ConfigMap", "type", "add"), NAMES.size());
    counts.set(series("informer_notifications_total", "handler", ConfigMapReconciler.NAME, "kind", "ConfigMap", "type", "update"), 1);
    counts.set(series("informer_updates_total", "cause", "watch", "handler", ConfigMapReconciler.NAME, "kind", "ConfigMap", "resource_version", "changed"), 1);
    System.out.print(counts.render());
    System.out.println("SCENARIO DONE");
    System.out.flush();
    while (System.in.read() >= 0) {
      // stay up for the scrape until the test closes our input
    }
    return 0;
  }

  /**
   * Changes {@code data[key]} of a ConfigMap as another client would: a merge patch sent with the JDK's
   * own HTTP client, which no agent instruments. Made with {@link #client}, it would be a write of this
   * process, whose update is an echo of its own ({@code own_write}), not a change.
   */
  private void changeFromOutside(String name, String key, String value) throws java.io.IOException, InterruptedException {
    java.net.URI uri = java.net.URI.create(client.getMasterUrl().toString().replaceAll("/$", "") + "/api/v1/namespaces/" + NAMESPACE + "/configmaps/" + name);
    java.net.http.HttpResponse<String> answer =
        java.net.http.HttpClient.newHttpClient()
            .send(
                java.net.http.HttpRequest.newBuilder(uri)
                    .method("PATCH", java.net.http.HttpRequest.BodyPublishers.ofString("{\"data\":{\"" + key + "\":\"" + value + "\"}}"))
                    .header("Content-Type", "application/merge-patch+json")
                    .build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
    if (answer.statusCode() / 100 != 2) {
      throw new IllegalStateException("the API server refused the outside change of " + name + ": " + answer.statusCode() + " " + answer.body());
    }
  }

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("timed out waiting for " + what);
      }
      Thread.sleep(20);
    }
  }
}
