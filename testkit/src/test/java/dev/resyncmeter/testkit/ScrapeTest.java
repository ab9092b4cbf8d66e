package dev.resyncmeter.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** How a scrape's lines become series keyed as printed. */
class ScrapeTest {

  @Test
  void eachSampleIsKeyedByItsNameAndLabelsAsPrinted() {
    Map<String, Double> series =
        Scrape.parse(
            String.join(
                "\n",
                "# HELP informer_updates_total Updates.",
                "# TYPE informer_updates_total counter",
                "informer_updates_total{cause=\"resync\",handler=\"a b\",kind=\"ConfigMap\"} 12.0",
                "resync_meter_errors_total 0",
                "workqueue_work_duration_seconds_bucket{le=\"+Inf\",name=\"q\"} 3 1700000000000",
                "gauge{} NaN",
                ""));
    assertThat(series)
        .containsExactly(
            Map.entry("informer_updates_total{cause=\"resync\",handler=\"a b\",kind=\"ConfigMap\"}", 12.0),
            Map.entry("resync_meter_errors_total", 0.0),
            Map.entry("workqueue_work_duration_seconds_bucket{le=\"+Inf\",name=\"q\"}", 3.0),
            Map.entry("gauge{}", Double.NaN));
  }

  @Test
  void aLineThatIsNoSampleFails() {
    assertThatThrownBy(() -> Scrape.parse("up 1\nnot a sample line {\n")).hasMessageContaining("line 2");
  }

  @Test
  void sumAddsTheSeriesOfANameWhoseLabelsContainAllGiven() {
    Scrape scrape =
        new Scrape(200, "text/plain", "", Scrape.parse("x_total{type=\"add\",kind=\"A\"} 1\nx_total{kind=\"B\",type=\"add\"} 2\nx_total{type=\"update\"} 4\nx_total_more 8\n"));
    assertThat(scrape.sum("x_total")).isEqualTo(7.0);
    assertThat(scrape.sum("x_total", "type=\"add\"")).isEqualTo(3.0);
    assertThat(scrape.value("x_total{type=\"update\"}")).isEqualTo(4.0);
    assertThat(scrape.value("absent")).isZero();
  }

  @Test
  void theAgentsStartLineNamesItsMetricsUrl() {
    assertThat(Scrape.resyncMeterUrl("[resync-meter] INFO resync-meter 0.1 serving http://0.0.0.0:9464/metrics; instrumenting x"))
        .isEqualTo("http://127.0.0.1:9464/metrics");
    assertThat(Scrape.resyncMeterUrl("[resync-meter] INFO resync-meter 0.1 serving http://127.0.0.2:1/metrics"))
        .isEqualTo("http://127.0.0.2:1/metrics");
    assertThat(Scrape.resyncMeterUrl("something else")).isNull();
  }
}
