package dev.resyncmeter.examples.josdk;

import static dev.resyncmeter.examples.truth.Truth.series;

import dev.resyncmeter.examples.fabric8.MockApiServer;
import dev.resyncmeter.examples.truth.Truth;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * The JOSDK end-to-end run: {@link ConfigMapOperator} against the in-process mock server, printing the
 * application's own counts.
 *
 * <p>{@code josdk-scenario}: four ConfigMaps exist when the operator starts ({@code plain},
 * {@code reschedule-once}, {@code fail-once}, {@code slow}); once each has been reconciled and the
 * reschedule and the retry are done, {@code slow} changes twice, the second time while the reconcile
 * of the first change runs; then the operator runs until every ConfigMap had two periodic reconciles
 * (maximum interval 2 s), and stops. Prints what each of the operator's writes got ({@code WRITE ...}),
 * the writes sent outside its reconcile code ({@code WRITES OUTSIDE THE RECONCILER n}: JOSDK's own, if
 * any), {@code truth} lines and {@code SCENARIO DONE}, then waits for its standard input to close.
 *
 * <p>{@code --http jdk} runs it on fabric8's JDK HTTP client instead of the default one (Vert.x). The
 * client carries the application's own interceptor, which counts every response it sees.
 *
 * <p>{@code attach}: the operator (periodic reconciles an hour apart, so no timer fires during the run)
 * reconciles every ConfigMap, reschedules and retries, says {@code READY FOR ATTACH} when all is
 * idle, and waits for a line on standard input (the test attaches the agent before it sends one).
 * From then on it counts afresh, through one change of each ConfigMap.
 */
public final class JosdkScenario {

  static final String NAMESPACE = "josdk-scenario";
  static final List<String> NAMES = List.of("plain", "reschedule-once", "fail-once", "slow");

  private JosdkScenario() {}

  public static void main(String[] args) throws Exception {
    Truth truth = new Truth();
    boolean jdk = args.length >= 2 && args[0].equals("--http") && args[1].equals("jdk");
    boolean attach = args.length == 1 && args[0].equals("attach");
    RequestCounts requests = new RequestCounts(truth);
    try (MockApiServer server = MockApiServer.start();
        KubernetesClient client = server.client(jdk ? new io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory() : null, requests)) {
      System.out.println("HTTP CLIENT " + client.getHttpClient().getClass().getName());
      ConfigMapOperator operator = attach ? afterAttach(server, client, truth) : run(server, client, truth);
      new java.util.TreeSet<>(operator.outcomes).forEach(System.out::println);
      System.out.println("WRITES OUTSIDE THE RECONCILER " + requests.writesOutsideTheReconciler.get());
    }
    System.out.print(truth.render());
    System.out.println("SCENARIO DONE");
    System.out.flush();
    while (System.in.read() >= 0) {
      // stay up for the scrape until the test closes our input
    }
    // the client's and the operator's pools may leave threads that are not daemons
    System.exit(0);
  }

  static ConfigMapOperator run(MockApiServer server, KubernetesClient client, Truth truth) throws Exception {
    for (String name : NAMES) {
      client.resource(configMap(name, "0")).inNamespace(NAMESPACE).create();
    }
    ConfigMapOperator reconciler = new ConfigMapOperator(client, truth);
    Operator operator = ConfigMapOperator.operator(client, reconciler, NAMESPACE);
    operator.start();
    try {
      await(
          "the first reconciles, the reschedule and the retry",
          () ->
              NAMES.stream().allMatch(n -> "success".equals(reconciler.lastResult(n)))
                  && reconciler.reconciles("reschedule-once") >= 2
                  && reconciler.reconciles("fail-once") >= 2,
          Duration.ofSeconds(30));
      phase("slow", "1", server);
      if (!reconciler.awaitSlowStarted(30)) {
        throw new IllegalStateException("the reconcile of slow's change did not start");
      }
      phase("slow", "2", server);
      // JOSDK marks the change while the reconcile runs; give its informer a moment to deliver it
      Thread.sleep(500);
      reconciler.releaseSlow();
      await("two periodic reconciles of every ConfigMap", () -> NAMES.stream().allMatch(n -> reconciler.periodicReconciles(n) >= 2), Duration.ofSeconds(60));
    } finally {
      operator.stop();
    }
    String handler = ConfigMapOperator.NAME;
    truth.set(series("informer_notifications_total", "handler", handler, "kind", "ConfigMap", "type", "add"), NAMES.size());
    truth.set(series("informer_notifications_total", "handler", handler, "kind", "ConfigMap", "type", "update"), 2);
    truth.set(series("informer_updates_total", "cause", "watch", "handler", handler, "kind", "ConfigMap", "resource_version", "changed"), 2);
    return reconciler;
  }

  static ConfigMapOperator afterAttach(MockApiServer server, KubernetesClient client, Truth truth) throws Exception {
    for (String name : NAMES) {
      client.resource(configMap(name, "0")).inNamespace(NAMESPACE).create();
    }
    ConfigMapOperator reconciler = new ConfigMapOperator(client, truth);
    Operator operator = ConfigMapOperator.operator(client, reconciler, NAMESPACE, Duration.ofHours(1));
    operator.start();
    try {
      await(
          "the first reconciles, the reschedule and the retry",
          () ->
              NAMES.stream().allMatch(n -> "success".equals(reconciler.lastResult(n)) && reconciler.reconciles(n) == (n.equals("plain") || n.equals("slow") ? 1 : 2)),
          Duration.ofSeconds(30));
      // JOSDK schedules the next (hourly) reconcile after the last one returned: let it settle
      Thread.sleep(500);
      System.out.println("READY FOR ATTACH");
      System.out.flush();
      java.io.BufferedReader stdin = new java.io.BufferedReader(new java.io.InputStreamReader(System.in, java.nio.charset.StandardCharsets.UTF_8));
      stdin.readLine();
      truth.clear();
      for (String name : NAMES) {
        int before = reconciler.reconciles(name);
        phase(name, "after-attach", server);
        await("the reconcile of " + name + "'s change", () -> reconciler.reconciles(name) == before + 1, Duration.ofSeconds(30));
      }
      Thread.sleep(500);
    } finally {
      operator.stop();
    }
    return reconciler;
  }

  /** Another client's change: the operator's process did not write it, so its update is no echo. */
  private static void phase(String name, String phase, MockApiServer server) throws java.io.IOException, InterruptedException {
    server.changeFromOutside(NAMESPACE, name, "phase", phase);
  }

  static ConfigMap configMap(String name, String phase) {
    return new ConfigMapBuilder().withNewMetadata().withName(name).endMetadata().withData(Map.of("phase", phase)).build();
  }

  static void await(String what, BooleanSupplier condition, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("timed out waiting for " + what);
      }
      Thread.sleep(20);
    }
  }
}
