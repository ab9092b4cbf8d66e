package dev.resyncmeter.examples.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resyncmeter.testkit.Scrape;
import dev.resyncmeter.testkit.Tools;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The whole product, end to end: the sample controllers run a fixed scenario (4 ConfigMaps, resync
 * ticks every second, 6 real changes, 2 forced relists, 1 delete) on the real client-java informer,
 * workqueue and controller code in a forked JVM with the agent jar attached. Every count the agent
 * exports must equal what the application itself counted.
 */
class ResyncScenarioIT {

  private static final String KIND = "kind=\"ConfigMap\"";

  private static AgentProcess scenario;
  private static Map<String, Long> truth;
  private static Scrape scrape;

  @BeforeAll
  static void runScenario() throws Exception {
    scenario = AgentProcess.start("host=127.0.0.1,port=0", Map.of(), "scenario", "4", "2", "6", "2");
    String url = scenario.metricsUrl(Duration.ofSeconds(30));
    scenario.awaitStdout("SCENARIO DONE"::equals, Duration.ofSeconds(120));
    truth = scenario.truth();
    scrape = Scrape.of(url);
  }

  @AfterAll
  static void stop() throws Exception {
    AgentProcess.end(scenario);
  }

  @Test
  void everyCountTheApplicationObservedIsExportedExactly() {
    assertThat(truth).hasSizeGreaterThan(20);
    ExactCounts.assertExported(truth, scrape);
  }

  @Test
  void noCountIsExportedThatTheApplicationDidNotObserve() {
    ExactCounts.assertNothingElse(truth, scrape, ExactCounts.INFORMER_FAMILIES);
  }

  @Test
  void theScenarioProducedResyncAndRelistNoopsForEveryHandler() {
    // Guards the equality tests above against a scenario that silently stopped exercising anything.
    for (String handler : List.of("configmap-every-update", "configmap-rv-filter", "ResyncScenario$AuditHandler")) {
      assertThat(truth.get(updates(handler, "resync", "unchanged"))).as(handler + " resync no-ops").isGreaterThanOrEqualTo(2 * 4);
      assertThat(truth.get(updates(handler, "watch", "changed"))).as(handler + " watch updates").isEqualTo(6);
      assertThat(truth.get(notifications(handler, "add"))).as(handler + " adds").isEqualTo(4);
      assertThat(truth.get(notifications(handler, "delete"))).as(handler + " deletes").isEqualTo(1);
    }
    assertThat(truth.get("informer_relists_total{" + KIND + ",reason=\"expired\"}")).isEqualTo(2);
    assertThat(truth.get("informer_resyncs_total{" + KIND + "}")).isGreaterThanOrEqualTo(3);
    long relistNoops = truth.get(updates("ResyncScenario$AuditHandler", "relist", "unchanged"));
    long lost = truth.get("informer_relist_notifications_lost_total{" + KIND + "}");
    // Each relist lists the 4 objects again: each listed object either reached the handlers or was lost.
    assertThat(relistNoops + lost).isEqualTo(2 * 4);
  }

  @Test
  void theEnqueuingHandlerEnqueuesNoopsAndTheFilteringOnesDropThem() {
    assertThat(scrape.value(noops("configmap-every-update", "resync", "enqueued"))).isPositive();
    assertThat(scrape.value(noops("configmap-every-update", "resync", "dropped"))).isZero();
    assertThat(scrape.value(noops("configmap-rv-filter", "resync", "dropped"))).isPositive();
    assertThat(scrape.value(noops("configmap-rv-filter", "resync", "enqueued"))).isZero();
    assertThat(scrape.value(noops("ResyncScenario$AuditHandler", "resync", "dropped"))).isPositive();
  }

  @Test
  void everyHandlerShowsTheResyncPeriodInEffectEvenOneThatAskedForNone() {
    // The audit handler asked for 0; client-java gives every handler the informer's period.
    for (String handler : List.of("configmap-every-update", "configmap-rv-filter", "ResyncScenario$AuditHandler")) {
      assertThat(scrape.series())
          .containsEntry("informer_resync_period_seconds{handler=\"" + handler + "\"," + KIND + "}", 1.0);
    }
  }

  @Test
  void infoNamesTheAgentAndTheClientLibrary() {
    assertThat(scrape.series().keySet())
        .anyMatch(s -> s.startsWith("resync_meter_info{client=\"client-java\",client_version=\"27.0.0\",version=\""));
  }

  @Test
  void theAgentAnnouncedItselfInOneLineAndReportedNoFault() {
    assertThat(scenario.agentLines()).hasSize(1);
    assertThat(scenario.agentLines().get(0))
        .matches("\\[resync-meter\\] INFO resync-meter \\S+ serving http://127\\.0\\.0\\.1:\\d+/metrics; instrumenting client-java 27\\.0\\.0 \\(informer, workqueue, controller, requests\\), fabric8 7\\.6\\.1 \\(informer, requests\\), JOSDK 5\\.3\\.2 \\(reconciler\\)");
    assertThat(scrape.series().keySet()).noneMatch(s -> s.startsWith("resync_meter_errors_total"));
  }

  @Test
  void theScrapeIsPrometheusTextThatPromtoolAccepts() throws Exception {
    assertThat(scrape.status()).isEqualTo(200);
    assertThat(scrape.contentType()).startsWith("text/plain; version=0.0.4");
    Tools.assertCleanMetrics(scrape.body());
  }

  @Test
  void labelsNeverCarryObjectNamesOrTheNamespace() {
    // The scenario's objects are default/cm-0 .. default/cm-3.
    List<String> values = labelValues(scrape.series().keySet());
    assertThat(values).as("label values were read").contains("configmap-every-update", "ConfigMap");
    for (String value : values) {
      assertThat(value).doesNotContain("cm-0", "cm-1", "cm-2", "cm-3", "default/").isNotEqualTo("default");
    }
  }

  /** Every label value of {@code name{k="v",...}} series keys, with the text format's escapes undone. */
  private static List<String> labelValues(Iterable<String> seriesKeys) {
    List<String> values = new ArrayList<>();
    for (String key : seriesKeys) {
      int i = key.indexOf('{');
      if (i < 0) {
        continue;
      }
      while ((i = key.indexOf("=\"", i)) >= 0) {
        StringBuilder value = new StringBuilder();
        for (i += 2; key.charAt(i) != '"'; i++) {
          char c = key.charAt(i);
          if (c == '\\') {
            char next = key.charAt(++i);
            value.append(next == 'n' ? '\n' : next);
          } else {
            value.append(c);
          }
        }
        values.add(value.toString());
      }
    }
    return values;
  }

  private static String updates(String handler, String cause, String resourceVersion) {
    return "informer_updates_total{cause=\"" + cause + "\",handler=\"" + handler + "\"," + KIND + ",resource_version=\"" + resourceVersion + "\"}";
  }

  private static String noops(String handler, String cause, String outcome) {
    return "informer_noop_updates_total{cause=\"" + cause + "\",handler=\"" + handler + "\"," + KIND + ",outcome=\"" + outcome + "\"}";
  }

  private static String notifications(String handler, String type) {
    return "informer_notifications_total{handler=\"" + handler + "\"," + KIND + ",type=\"" + type + "\"}";
  }
}
