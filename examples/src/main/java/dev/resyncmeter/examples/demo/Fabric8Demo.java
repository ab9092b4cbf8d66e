package dev.resyncmeter.examples.demo;

import dev.resyncmeter.examples.fabric8.Fabric8Sample;
import dev.resyncmeter.examples.fabric8.MockApiServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Map;
import java.util.Random;

/**
 * The fabric8 demo: {@link Fabric8Sample} (a handler that compares resource versions and one that
 * does not) against fabric8's mock server in CRUD mode, with a change every 3 seconds, and a summary
 * read from the agent's endpoint every 10.
 */
final class Fabric8Demo {

  private static final String NAMESPACE = "demo";

  private Fabric8Demo() {}

  static void run(AgentEndpoint endpoint, long seconds, StopSignal stop) throws Exception {
    try (MockApiServer server = MockApiServer.start()) {
      KubernetesClient client = server.client();
      for (int i = 0; i < Demo.OBJECTS; i++) {
        client.resource(new ConfigMapBuilder().withNewMetadata().withName("settings-" + i).endMetadata().withData(Map.of("revision", "0")).build())
            .inNamespace(NAMESPACE)
            .create();
      }
      try (Fabric8Sample<ConfigMap> sample = new Fabric8Sample<>(client, ConfigMap.class, NAMESPACE, Demo.RESYNC_PERIOD.toMillis(), null).start()) {
        System.out.println(
            "demo: fabric8 informer with handlers VersionCheckingHandler and EveryUpdateHandler, resync every "
                + Demo.RESYNC_PERIOD.toSeconds() + " s, against fabric8's mock server with " + Demo.OBJECTS + " ConfigMaps; " + endpoint.where());
        Random random = new Random(42);
        DemoReport report = new DemoReport(endpoint);
        long start = System.nanoTime();
        for (long tick = 1; (System.nanoTime() - start) / 1_000_000_000L < seconds && !stop.await(Duration.ofSeconds(1)); tick++) {
          if (tick % 3 == 0) {
            String revision = Long.toString(tick);
            // someone else's edit (a client the agent does not see): a change, no echo of the demo's own writes
            MockApiServer.mergePatchByAnotherClient(client, NAMESPACE, "settings-" + random.nextInt(Demo.OBJECTS), "{\"data\":{\"revision\":\"" + revision + "\"}}");
          }
          if (tick % 10 == 0) {
            report.print("reconciles " + sample.reconciles());
          }
        }
        report.printFinal();
      }
    }
  }
}
