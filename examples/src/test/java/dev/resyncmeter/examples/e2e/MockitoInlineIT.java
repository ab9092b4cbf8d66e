package dev.resyncmeter.examples.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resyncmeter.testkit.Scrape;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A controller's unit tests with the agent attached: Mockito's inline mock maker mocks client-java
 * types (a queue class the agent weaves, the handler interface it matches, the informer), injecting
 * its own dispatcher into the boot loader. The mocks work, and the agent prints no warning and counts
 * no fault for classes it cannot fully read that are none of its business.
 */
class MockitoInlineIT {

  @Test
  void mocksOfClientJavaTypesWorkAndTheAgentStaysQuiet() throws Exception {
    try (AgentProcess mocks = AgentProcess.start("host=127.0.0.1,port=0", Map.of(), "mock-scenario")) {
      String url = mocks.metricsUrl(Duration.ofSeconds(30));
      mocks.awaitStdout("MOCKS WORK"::equals, Duration.ofSeconds(60));
      Scrape scrape = Scrape.of(url);

      assertThat(mocks.agentLines()).as("resync-meter's lines\n%s", mocks.transcript()).singleElement().asString().contains(" INFO ");
      assertThat(scrape.series().keySet()).noneMatch(s -> s.startsWith("resync_meter_errors_total"));
      for (String component : List.of("clientjava-informer", "clientjava-workqueue", "clientjava-controller")) {
        assertThat(scrape.series()).containsEntry("resync_meter_instrumentation_active{component=\"" + component + "\"}", 1.0);
      }
      assertThat(mocks.closeInputAndWait(Duration.ofSeconds(30))).as("exit code\n%s", mocks.transcript()).isZero();
    }
  }
}
