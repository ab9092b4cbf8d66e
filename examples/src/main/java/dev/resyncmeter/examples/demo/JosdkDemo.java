package dev.resyncmeter.examples.demo;

import dev.resyncmeter.examples.fabric8.MockApiServer;
import dev.resyncmeter.examples.josdk.ConfigMapOperator;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.javaoperatorsdk.operator.Operator;
import java.time.Duration;
import java.util.Map;
import java.util.Random;

/**
 * The JOSDK demo: {@link ConfigMapOperator} (maximum reconciliation interval 2 s), wrapped in {@link
 * DriftRepairingOperator}, against fabric8's mock server in CRUD mode, with a change every 3 seconds,
 * a drift of what the operator wrote every 5, a change of {@code echoed} every 10 (the operator's
 * reconcile writes it, and reconciles its echo), and a summary read from the agent's endpoint every 10:
 * how many reconciles, and seconds, the timer causes next to real changes, and how many of them repair.
 */
final class JosdkDemo {

  private static final String NAMESPACE = "demo";

  private JosdkDemo() {}

  static void run(AgentEndpoint endpoint, long seconds, StopSignal stop) throws Exception {
    try (MockApiServer server = MockApiServer.start()) {
      KubernetesClient client = server.client();
      for (int i = 0; i < Demo.OBJECTS; i++) {
        client.resource(new ConfigMapBuilder().withNewMetadata().withName("settings-" + i).endMetadata().withData(Map.of("revision", "0")).build())
            .inNamespace(NAMESPACE)
            .create();
      }
      client.resource(new ConfigMapBuilder().withNewMetadata().withName(DriftRepairingOperator.ECHOED).endMetadata().withData(Map.of("revision", "0")).build())
          .inNamespace(NAMESPACE)
          .create();
      Operator operator = DriftRepairingOperator.operator(client, NAMESPACE);
      operator.start();
      try {
        System.out.println(
            "demo: JOSDK operator " + ConfigMapOperator.NAME + " (maxReconciliationInterval 2 s) against fabric8's mock server with "
                + Demo.OBJECTS + " ConfigMaps, and " + DriftRepairingOperator.ECHOED + ", whose reconcile writes it (its write comes back); " + endpoint.where());
        Random random = new Random(42);
        Random drifts = new Random(7); // apart from the churn's, so the churn changes the same ConfigMaps as without drifts
        DemoReport report = new DemoReport(endpoint);
        long start = System.nanoTime();
        for (long tick = 1; (System.nanoTime() - start) / 1_000_000_000L < seconds && !stop.await(Duration.ofSeconds(1)); tick++) {
          if (tick % 3 == 0) {
            String revision = Long.toString(tick);
            // someone else's edit (a client the agent does not see), not a write of the operator's process
            MockApiServer.mergePatchByAnotherClient(client, NAMESPACE, "settings-" + random.nextInt(Demo.OBJECTS), "{\"data\":{\"revision\":\"" + revision + "\"}}");
          }
          if (tick % 5 == 0) {
            String name = "settings-" + drifts.nextInt(Demo.OBJECTS);
            // What the operator wrote, in a namespace nothing watches: no event, only its timer finds it.
            // (The operator writes it on its first reconcile; on a machine too slow for that, no drift yet.)
            Resource<ConfigMap> seen = client.configMaps().inNamespace(ConfigMapOperator.SEEN_NAMESPACE).withName(name);
            if (seen.get() != null) {
              MockApiServer.mergePatchByAnotherClient(client, ConfigMapOperator.SEEN_NAMESPACE, name, "{\"data\":{\"" + DriftRepairingOperator.SEEN_KEY + "\":\"drifted\"}}");
              System.out.println("demo: " + ConfigMapOperator.SEEN_NAMESPACE + "/" + name + " drifted (nothing watches it): a periodic reconcile repairs it");
            }
          }
          if (tick % 10 == 7) {
            String revision = Long.toString(tick);
            MockApiServer.mergePatchByAnotherClient(client, NAMESPACE, DriftRepairingOperator.ECHOED, "{\"data\":{\"revision\":\"" + revision + "\"}}");
          }
          if (tick % 10 == 0) {
            report.print("operator " + ConfigMapOperator.NAME);
          }
        }
        report.printFinal();
      } finally {
        operator.stop();
      }
    }
  }
}
