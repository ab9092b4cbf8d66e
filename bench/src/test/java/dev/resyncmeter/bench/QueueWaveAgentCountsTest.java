package dev.resyncmeter.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resyncmeter.bench.QueueWaveRuns.Agent;
import dev.resyncmeter.testkit.Scrape;
import org.junit.jupiter.api.Test;

/** What a queue-wave run with an agent must find in the agent's scrape: its adds and reconciles, exactly. */
class QueueWaveAgentCountsTest {

  private static final String ALL_COUNTED =
      """
      workqueue_adds_total{name="queue-wave"} 3000.0
      controller_reconcile_total{controller="queue-wave",trigger="unknown",result="success"} 2999.0
      controller_reconcile_total{controller="queue-wave",trigger="resync",result="success"} 1.0
      resync_meter_errors_total 0.0
      """;

  @Test
  void anAgentThatCountedEveryAddAndReconcilePasses() {
    AgentCounts.Reading reading = AgentCounts.read(scrape(ALL_COUNTED), QueueWaveRuns.expectedCounts(Agent.ALL_PARTS, 3000));

    assertThat(reading.allMatch()).isTrue();
    assertThat(reading.text()).isEqualTo("workqueue_adds_total 3000 of 3000, controller_reconcile_total 3000 of 3000, resync_meter_errors_total 0 of 0");
  }

  @Test
  void anAgentThatWasNotOnFailsAndSaysTheCountsAreAbsent() {
    AgentCounts.Reading reading = AgentCounts.read(scrape("jvm_threads_live_threads 12.0\n"), QueueWaveRuns.expectedCounts(Agent.ALL_PARTS, 3000));

    assertThat(reading.allMatch()).isFalse();
    assertThat(reading.text())
        .isEqualTo(
            "workqueue_adds_total absent from the scrape, 3000 expected, controller_reconcile_total absent from the scrape, 3000 expected, "
                + "resync_meter_errors_total 0 of 0");
  }

  @Test
  void aCountShortOfTheWaveFails() {
    String lost = ALL_COUNTED.replace("2999.0", "2998.0");

    AgentCounts.Reading reading = AgentCounts.read(scrape(lost), QueueWaveRuns.expectedCounts(Agent.ALL_PARTS, 3000));

    assertThat(reading.allMatch()).isFalse();
    assertThat(reading.text()).contains("controller_reconcile_total 2999 of 3000");
  }

  @Test
  void withoutTheWorkqueuePartNoAddIsCountedAndEveryReconcileIs() {
    String reconcilesOnly = ALL_COUNTED.replace("workqueue_adds_total{name=\"queue-wave\"} 3000.0\n", "");

    assertThat(AgentCounts.read(scrape(reconcilesOnly), QueueWaveRuns.expectedCounts(Agent.WITHOUT_WORKQUEUE, 3000)).allMatch()).isTrue();
    assertThat(AgentCounts.read(scrape(ALL_COUNTED), QueueWaveRuns.expectedCounts(Agent.WITHOUT_WORKQUEUE, 3000)).allMatch()).isFalse();
  }

  private static Scrape scrape(String body) {
    return new Scrape(200, "text/plain", body, Scrape.parse(body));
  }
}
