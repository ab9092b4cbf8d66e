package dev.resyncmeter.examples.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resyncmeter.testkit.Scrape;
import dev.resyncmeter.testkit.Tools;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The agent's memory follows what is in flight, not what it has seen. The memory scenario (see
 * {@code MemoryScenario}) churns 1,010,000 distinct keys through a real rate-limiting queue (a tenth
 * requeued with addAfter, a tenth with addRateLimited, a tenth with addAfter(0)), sends 100,000
 * delayed adds to a delaying queue that refuses them (its buffer is full, then it is shut down), and
 * takes a real informer with a controller through 100,000 ConfigMaps, a resync and two relists of
 * them. It runs twice, the same way, once without the agent and once with it; each prints its used
 * heap after full collections (serial collector) after a warm-up (10,000 keys, 1,000 objects) and at
 * the end, with the informer still holding its 100,000 objects. The agent's share is the difference.
 *
 * <p>The bounds: at the end the agent holds at most {@link #AGENT_HEAP_BOUND} (its meters, registry
 * and instrumentation; measured at about 4 MB), and at most {@link #AGENT_GROWTH_BOUND} more than after
 * the warm-up. That growth allows for the capacity the agent's maps keep after their peak of items in
 * flight (a relist of 100,000 objects is 100,000 marks in flight at once, about 1 MB of table slots),
 * the meters first used after the warm-up, and the host's own timing-dependent peaks. One map entry
 * per key seen would add 32 MB or more, and one per object about 7 MB: the agent before this test
 * existed grew by 12 MB here.
 */
class BoundedMemoryIT {

  static final long MB = 1024 * 1024;
  static final long AGENT_HEAP_BOUND = 8 * MB;
  static final long AGENT_GROWTH_BOUND = 4 * MB;

  /** Serial collector: a full collection leaves exactly the live objects, so used heap is comparable. */
  private static final List<String> JVM = List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:SoftRefLRUPolicyMSPerMB=0");
  private static final Duration RUN = Duration.ofSeconds(240);

  private static Map<String, Long> withoutAgent;
  private static Map<String, Long> withAgent;
  private static AgentProcess scenario;
  private static Map<String, Long> truth;
  private static Scrape scrape;

  @BeforeAll
  static void runWithoutThenWithTheAgent() throws Exception {
    try (AgentProcess plain = AgentProcess.startWithoutAgent(JVM, "memory-scenario")) {
      plain.awaitStdout("SCENARIO DONE"::equals, RUN);
      withoutAgent = heap(plain);
      assertThat(plain.closeInputAndWait(Duration.ofSeconds(30))).isZero();
    }
    scenario = AgentProcess.start(JVM, "host=127.0.0.1,port=0", Map.of(), "memory-scenario");
    String url = scenario.metricsUrl(Duration.ofSeconds(30));
    scenario.awaitStdout("SCENARIO DONE"::equals, RUN);
    withAgent = heap(scenario);
    truth = scenario.truth();
    scrape = Scrape.of(url);
    System.out.println(report());
  }

  @AfterAll
  static void stop() throws Exception {
    AgentProcess.end(scenario);
  }

  private static Map<String, Long> heap(AgentProcess process) {
    Map<String, Long> heap = new LinkedHashMap<>();
    for (String line : process.stdout()) {
      if (line.startsWith("heap ")) {
        String[] parts = line.split(" ");
        heap.put(parts[1], Long.parseLong(parts[2]));
      }
    }
    assertThat(heap).containsOnlyKeys("baseline", "final");
    return heap;
  }

  private static long agentShare(String point) {
    return withAgent.get(point) - withoutAgent.get(point);
  }

  private static String report() {
    return String.format(
        "used heap without agent %s, with agent %s; agent's share: baseline %.2f MB, final %.2f MB",
        withoutAgent, withAgent, agentShare("baseline") / (double) MB, agentShare("final") / (double) MB);
  }

  @Test
  void theAgentHoldsLessThan8MbAfterAMillionKeysAndAHundredThousandObjects() {
    assertThat(agentShare("final")).as(report()).isLessThanOrEqualTo(AGENT_HEAP_BOUND);
  }

  @Test
  void theAgentsShareGrowsByLessThan4MbFromTheWarmUpToTheEnd() {
    assertThat(agentShare("final") - agentShare("baseline")).as(report()).isLessThanOrEqualTo(AGENT_GROWTH_BOUND);
  }

  @Test
  void theChurnWasAsLargeAsClaimed() {
    assertThat(truth.get("workqueue_trigger_adds_total{name=\"MemoryScenario$Churn\",trigger=\"other\"}")).isEqualTo(1_010_000);
    assertThat(truth.get("workqueue_trigger_adds_total{name=\"MemoryScenario$Churn\",trigger=\"requeue\"}")).isEqualTo(303_000);
    assertThat(truth.get("workqueue_trigger_adds_total{name=\"MemoryScenario$Stalled\",trigger=\"other\"}")).isEqualTo(100_010);
    assertThat(truth.get("informer_notifications_total{handler=\"memory-controller\",kind=\"ConfigMap\",type=\"add\"}")).isEqualTo(100_000);
    assertThat(truth.get("informer_notifications_total{handler=\"memory-controller\",kind=\"ConfigMap\",type=\"update\"}"))
        .isEqualTo(3 * 1_000 + 2 * 100_000);
  }

  @Test
  void everyExportedCountEqualsTheApplicationsOwn() {
    Map<String, Long> counted = new LinkedHashMap<>(truth);
    counted.keySet().removeIf(series -> series.startsWith("reconciles_of{") || series.startsWith("relists_of{"));
    ExactCounts.assertExported(counted, scrape);
    assertThat(ExactCounts.sum(scrape, "controller_reconcile_total", "controller=\"memory-controller\""))
        .isEqualTo(truth.get("reconciles_of{controller=\"memory-controller\"}").longValue());
    assertThat(ExactCounts.sum(scrape, "informer_relists_total", "kind=\"ConfigMap\"")).isEqualTo(truth.get("relists_of{kind=\"ConfigMap\"}").longValue());
  }

  @Test
  void nothingOverflowedNothingFailedAndTheScrapePassesPromtool() throws Exception {
    assertThat(scrape.series().keySet().stream().filter(s -> s.startsWith("resync_meter_label_overflow_total{"))).hasSize(6);
    assertThat(ExactCounts.sum(scrape, "resync_meter_label_overflow_total", "label=")).isZero();
    assertThat(scrape.series().keySet()).noneMatch(s -> s.startsWith("resync_meter_errors_total"));
    Tools.assertCleanMetrics(scrape.body());
  }
}
