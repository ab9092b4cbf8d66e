package dev.resyncmeter.examples.demo;

import dev.resyncmeter.examples.fabric8.MockApiServer;
import dev.resyncmeter.examples.josdk.ConfigMapOperator;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import java.util.Map;
import java.util.Random;

/**
 * The JOSDK demo: {@link ConfigMapOperator} (maximum reconciliation interval 2 s) against fabric8's
 * mock server in CRUD mode, with a change every 3 seconds, and a summary read from the agent's
 * endpoint every 10: how many reconciles, and seconds, the timer causes next to real changes.
 */
final class JosdkDemo {

  private static final String NAMESPACE = "demo";

  private JosdkDemo() {}

  static void run(String metricsUrl, long seconds) throws Exception {
    try (MockApiServer server = MockApiServer.start()) {
      KubernetesClient client = server.client();
      for (int i = 0; i < Demo.OBJECTS; i++) {
        client.resource(new ConfigMapBuilder().withNewMetadata().withName("settings-" + i).endMetadata().withData(Map.of("revision", "0")).build())
            .inNamespace(NAMESPACE)
            .create();
      }
      Operator operator = ConfigMapOperator.operator(client, new ConfigMapOperator(client, null), NAMESPACE);
      operator.start();
      try {
        System.out.println(
            "demo: JOSDK operator " + ConfigMapOperator.NAME + " (maxReconciliationInterval 2 s) against fabric8's mock server with "
                + Demo.OBJECTS + " ConfigMaps; metrics at " + metricsUrl);
        Random random = new Random(42);
        DemoReport report = new DemoReport(metricsUrl);
        long start = System.nanoTime();
        for (long tick = 1; (System.nanoTime() - start) / 1_000_000_000L < seconds; tick++) {
          Thread.sleep(1_000);
          if (tick % 3 == 0) {
            String revision = Long.toString(tick);
            client.configMaps().inNamespace(NAMESPACE).withName("settings-" + random.nextInt(Demo.OBJECTS))
                .edit(c -> new ConfigMapBuilder(c).addToData("revision", revision).build());
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
