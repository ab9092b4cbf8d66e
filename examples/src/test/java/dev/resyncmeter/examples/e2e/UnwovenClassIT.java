package dev.resyncmeter.examples.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resyncmeter.testkit.Scrape;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A class the informer instrumentation knows, whose weaving fails (made to fail here with the
 * test-only {@code -Dresyncmeter.test.failWeaving=<class>}, as a bug in the agent or ByteBuddy would):
 * the agent is not silently blind. One WARN line names the class and the cause, the informer part
 * switches off as a whole and shows it in {@code resync_meter_instrumentation_active}, the fault is
 * counted, and the host runs its scenario as always.
 */
class UnwovenClassIT {

  private static final String LISTENER = "io.kubernetes.client.informer.cache.ProcessorListener";

  private static AgentProcess scenario;
  private static Scrape scrape;

  @BeforeAll
  static void runTheScenarioWithAnUnwovenListener() throws Exception {
    scenario =
        AgentProcess.start(
            List.of("-Dresyncmeter.test.failWeaving=" + LISTENER), "host=127.0.0.1,port=0", Map.of(), "scenario", "4", "2", "3", "1");
    String url = scenario.metricsUrl(Duration.ofSeconds(30));
    scenario.awaitStdout("SCENARIO DONE"::equals, Duration.ofSeconds(120));
    scrape = Scrape.of(url);
  }

  @AfterAll
  static void stop() throws Exception {
    AgentProcess.end(scenario);
  }

  @Test
  void oneWarningNamesTheClassAndWhyAndThePartThatSwitchedOff() {
    assertThat(scenario.agentLines().stream().filter(l -> l.contains(" WARN ")))
        .singleElement()
        .asString()
        .startsWith("[resync-meter] WARN client-java informer instrumentation off: could not weave " + LISTENER + " (")
        .contains("weaving failure injected into " + LISTENER);
  }

  @Test
  void theExportedStateShowsWhichPartsCount() {
    assertThat(scrape.series())
        .containsEntry("resync_meter_instrumentation_active{component=\"clientjava-informer\"}", 0.0)
        .containsEntry("resync_meter_instrumentation_active{component=\"clientjava-workqueue\"}", 1.0)
        .containsEntry("resync_meter_instrumentation_active{component=\"clientjava-controller\"}", 1.0)
        .containsEntry("resync_meter_errors_total{component=\"instrumentation\"}", 1.0);
  }

  @Test
  void theSwitchedOffPartExportsNoCountsRatherThanPartialOnes() {
    assertThat(scrape.series()).allSatisfy((series, value) -> {
      if (series.startsWith("informer_")) {
        assertThat(value).as(series).isZero();
      }
    });
  }
}
