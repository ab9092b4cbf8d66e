package dev.resyncmeter.examples.fabric8;

import dev.resyncmeter.examples.scenario.ResyncScenario;
import dev.resyncmeter.examples.truth.Truth;

/**
 * Both client libraries in one host: the fabric8 scenario on Secrets, then the client-java resync
 * scenario on ConfigMaps, in one JVM, each printing its own counts (the client-java one ends with
 * {@code SCENARIO DONE} and waits for standard input to close, as alone).
 */
public final class MixedScenario {

  private MixedScenario() {}

  public static void main(String[] args) throws Exception {
    Truth fabric8 = new Truth();
    try (MockApiServer server = MockApiServer.start()) {
      Fabric8Scenario.run(server, "Secret", fabric8);
    }
    System.out.print(fabric8.render());
    System.out.flush();
    ResyncScenario.main(new String[0]);
  }
}
