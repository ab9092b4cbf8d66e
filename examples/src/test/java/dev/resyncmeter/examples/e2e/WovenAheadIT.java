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
 * The library classes of the versions the agent is built against come woven ahead of time, and
 * handler calls are measured where the library makes them, so no handler class is woven at the JVM's
 * start: a JOSDK operator, a client-java controller with a handler class of its own, and handlers of
 * every shape javac and Kotlin make (anonymous classes, lambdas, object expressions) start without
 * running ByteBuddy at all (none of its classes is loaded); every count is exact in each. The JVM's own
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
  void aClientJavaControllerWithAHandlerClassOfItsOwnStartsWithoutByteBuddyAndCountsExactly() throws Exception {
    Path log = temp.resolve("client-java.log");
    try (AgentProcess scenario = AgentProcess.start(classLoadingOptions(log), "host=127.0.0.1,port=0", Map.of(), ExactCounts.RECONCILE_SCENARIO)) {
      Scrape scrape = ExactCounts.reconcileScenarioScrape(scenario);

      ExactCounts.assertReconcileScenario(scenario.truth(), scrape);
      List<String> loaded = classLoadingLog(log);
      assertThat(loaded).anyMatch(l -> l.contains("io.kubernetes.client.informer.cache.ProcessorListener "));
      // the scenario's FailingHandler implements ResourceEventHandler itself
      assertThat(loaded).anyMatch(l -> l.contains(" dev.resyncmeter.examples.scenario.FailingHandler "));
      assertThat(loaded).noneMatch(l -> l.contains(BYTE_BUDDY));
    }
  }

  @Test
  void handlersOfEveryShapeJavacAndKotlinMakeCountExactlyWithoutByteBuddy() throws Exception {
    Path log = temp.resolve("handler-shapes.log");
    try (AgentProcess scenario =
        AgentProcess.start(classLoadingOptions(log), "host=127.0.0.1,port=0", Map.of(), "handler-shapes-scenario", "3", "1", "3", "1")) {
      Scrape scrape = ExactCounts.resyncScenarioScrape(scenario);
      Map<String, Long> truth = scenario.truth();

      ExactCounts.assertExported(truth, scrape);
      ExactCounts.assertNothingElse(truth, scrape, ExactCounts.INFORMER_FAMILIES);
      for (String handler : List.of("HandlerShapes$Anonymous", "HandlerShapes$Lambdas", "KotlinHandler", "KotlinHandlersKt")) {
        // guards the equality above against a handler that silently saw nothing
        assertThat(truth).as(handler + " adds").containsEntry(series(handler, "informer_notifications_total", "type=\"add\""), 3L);
        assertThat(truth).as(handler + " deletes").containsEntry(series(handler, "informer_notifications_total", "type=\"delete\""), 1L);
        assertThat(truth)
            .as(handler + " watch updates")
            .containsEntry("informer_updates_total{cause=\"watch\",handler=\"" + handler + "\",kind=\"ConfigMap\",resource_version=\"changed\"}", 3L);
      }
      List<String> loaded = classLoadingLog(log);
      assertThat(loaded).anyMatch(l -> l.contains(" dev.resyncmeter.examples.scenario.KotlinHandlersKt$objectExpression$1 "));
      assertThat(loaded).noneMatch(l -> l.contains(BYTE_BUDDY));
    }
  }

  private static String series(String handler, String family, String label) {
    return family + "{handler=\"" + handler + "\",kind=\"ConfigMap\"," + label + "}";
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
