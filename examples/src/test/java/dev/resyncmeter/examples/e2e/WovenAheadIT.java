package dev.resyncmeter.examples.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resyncmeter.testkit.Scrape;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The library classes of the versions the agent is built against come woven ahead of time: a JOSDK
 * operator, whose handlers are all JOSDK's, starts without running ByteBuddy at all (none of its
 * classes is loaded); a client-java controller with a handler class of its own has that class woven
 * by ByteBuddy beside the library classes woven ahead; every count is exact in both. The JVM's own
 * class loading log is the witness.
 */
class WovenAheadIT {

  private static final String BYTE_BUDDY = "dev.resyncmeter.agent.shaded.bytebuddy.";

  @TempDir Path temp;

  private List<String> classLoadingLog(Path log) throws Exception {
    return Files.readAllLines(log);
  }

  private List<String> classLoadingOptions(Path log) {
    return List.of("-Xlog:class+load=info:file=" + log);
  }

  @Test
  void aClientJavaControllerWithAHandlerClassOfItsOwnHasItWovenByByteBuddyAndCountsExactly() throws Exception {
    Path log = temp.resolve("client-java.log");
    try (AgentProcess scenario = AgentProcess.start(classLoadingOptions(log), "host=127.0.0.1,port=0", Map.of(), ExactCounts.RECONCILE_SCENARIO)) {
      Scrape scrape = ExactCounts.reconcileScenarioScrape(scenario);

      ExactCounts.assertReconcileScenario(scenario.truth(), scrape);
      List<String> loaded = classLoadingLog(log);
      assertThat(loaded).anyMatch(l -> l.contains("io.kubernetes.client.informer.cache.ProcessorListener "));
      // the scenario's FailingHandler implements ResourceEventHandler itself
      assertThat(loaded).anyMatch(l -> l.contains(" dev.resyncmeter.examples.scenario.FailingHandler "));
      assertThat(loaded).anyMatch(l -> l.contains(BYTE_BUDDY));
    }
  }

  @Test
  void aJosdkOperatorStartsWithoutByteBuddyAndCountsExactly() throws Exception {
    Path log = temp.resolve("josdk.log");
    try (AgentProcess scenario = AgentProcess.start(classLoadingOptions(log), "host=127.0.0.1,port=0", Map.of(), "josdk-scenario")) {
      String url = scenario.metricsUrl(Duration.ofSeconds(60));
      scenario.awaitStdout("SCENARIO DONE"::equals, Duration.ofSeconds(120));
      Scrape scrape = Scrape.of(url);

      ExactCounts.assertJosdkScenario(scenario.truth(), scrape);
      List<String> loaded = classLoadingLog(log);
      assertThat(loaded).anyMatch(l -> l.contains("io.javaoperatorsdk.operator.processing.event.EventProcessor "));
      assertThat(loaded).noneMatch(l -> l.contains(BYTE_BUDDY));
    }
  }
}
