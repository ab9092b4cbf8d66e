package dev.resyncmeter.collector;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What the collector exports, as a scraper sees it. */
class ResyncMetricsTest {

  private final ResyncMetrics metrics = new ResyncMetrics();

  private String scrape() {
    return metrics.scrape(null).body();
  }

  @Test
  void anUnchangedUpdateCountsAsNotificationUpdateAndNoopWithItsOutcome() {
    HandlerMetrics handler = metrics.handler("ConfigMap", "c1");
    handler.update(UpdateCause.RESYNC, true, NoopOutcome.ENQUEUED);
    handler.update(UpdateCause.RESYNC, true, NoopOutcome.ENQUEUED);
    handler.update(UpdateCause.RELIST, true, NoopOutcome.DROPPED);

    assertThat(scrape())
        .contains("informer_notifications_total{handler=\"c1\",kind=\"ConfigMap\",type=\"update\"} 3.0")
        .contains("informer_updates_total{cause=\"resync\",handler=\"c1\",kind=\"ConfigMap\",resource_version=\"unchanged\"} 2.0")
        .contains("informer_updates_total{cause=\"relist\",handler=\"c1\",kind=\"ConfigMap\",resource_version=\"unchanged\"} 1.0")
        .contains("informer_noop_updates_total{cause=\"resync\",handler=\"c1\",kind=\"ConfigMap\",outcome=\"enqueued\"} 2.0")
        .contains("informer_noop_updates_total{cause=\"relist\",handler=\"c1\",kind=\"ConfigMap\",outcome=\"dropped\"} 1.0");
  }

  @Test
  void aChangedUpdateIsNoNoop() {
    metrics.handler("ConfigMap", "c1").update(UpdateCause.WATCH, false, NoopOutcome.ENQUEUED);
    assertThat(scrape())
        .contains("informer_updates_total{cause=\"watch\",handler=\"c1\",kind=\"ConfigMap\",resource_version=\"changed\"} 1.0")
        .doesNotContain("informer_noop_updates_total{");
  }

  @Test
  void addsAndDeletesAreNotifications() {
    HandlerMetrics handler = metrics.handler("Pod", "h");
    handler.notification(NotificationType.ADD);
    handler.notification(NotificationType.DELETE);
    handler.notification(NotificationType.DELETE);
    assertThat(scrape())
        .contains("informer_notifications_total{handler=\"h\",kind=\"Pod\",type=\"add\"} 1.0")
        .contains("informer_notifications_total{handler=\"h\",kind=\"Pod\",type=\"delete\"} 2.0");
  }

  @Test
  void theSameKindAndHandlerShareTheirMeters() {
    assertThat(metrics.handler("Pod", "h")).isSameAs(metrics.handler("Pod", "h"));
    assertThat(metrics.handler("Pod", "h")).isNotSameAs(metrics.handler("ConfigMap", "h"));
    assertThat(metrics.informer("Pod")).isSameAs(metrics.informer("Pod"));
  }

  @Test
  void informerCountsStartAtZeroAndCountResyncsRelistsAndLosses() {
    InformerMetrics informer = metrics.informer("ConfigMap");
    assertThat(scrape()).contains("informer_resyncs_total{kind=\"ConfigMap\"} 0.0");
    informer.resync();
    informer.relist(RelistReason.EXPIRED);
    informer.relist(RelistReason.EXPIRED);
    informer.relist(RelistReason.ERROR);
    informer.relistNotificationLost();
    assertThat(scrape())
        .contains("informer_resyncs_total{kind=\"ConfigMap\"} 1.0")
        .contains("informer_relists_total{kind=\"ConfigMap\",reason=\"expired\"} 2.0")
        .contains("informer_relists_total{kind=\"ConfigMap\",reason=\"error\"} 1.0")
        .contains("informer_relist_notifications_lost_total{kind=\"ConfigMap\"} 1.0");
  }

  @Test
  void theResyncPeriodGaugeIsInSecondsAndFollowsTheLatestValue() {
    HandlerMetrics handler = metrics.handler("ConfigMap", "h");
    handler.resyncPeriodMillis(30_000);
    assertThat(scrape()).contains("informer_resync_period_seconds{handler=\"h\",kind=\"ConfigMap\"} 30.0");
    handler.resyncPeriodMillis(0);
    assertThat(scrape()).contains("informer_resync_period_seconds{handler=\"h\",kind=\"ConfigMap\"} 0.0");
  }

  @Test
  void infoAndErrorsHaveTheirContractNames() {
    metrics.info("1.2.3", "client-java", "27.0.0");
    metrics.error("clientjava-informer");
    assertThat(scrape())
        .contains("resync_meter_info{client=\"client-java\",client_version=\"27.0.0\",version=\"1.2.3\"} 1")
        .contains("resync_meter_errors_total{component=\"clientjava-informer\"} 1.0");
  }

  @Test
  void everyMeterHasHelpText() {
    metrics.handler("ConfigMap", "h").update(UpdateCause.RESYNC, true, NoopOutcome.DROPPED);
    metrics.handler("ConfigMap", "h").resyncPeriodMillis(1000);
    metrics.informer("ConfigMap");
    metrics.info("1", "client-java", "27.0.0");
    metrics.error("x");
    String body = scrape();
    long types = body.lines().filter(l -> l.startsWith("# TYPE ")).count();
    long helps = body.lines().filter(l -> l.startsWith("# HELP ") && l.split(" ", 4).length == 4).count();
    assertThat(types).isEqualTo(9);
    assertThat(helps).isEqualTo(types);
  }

  @Test
  void theAcceptHeaderChoosesOpenMetrics() {
    assertThat(metrics.scrape("application/openmetrics-text; version=1.0.0").contentType()).startsWith("application/openmetrics-text");
    assertThat(metrics.scrape("text/plain").contentType()).startsWith("text/plain; version=0.0.4");
    assertThat(metrics.scrape(null).contentType()).startsWith("text/plain; version=0.0.4");
    assertThat(metrics.scrape("application/openmetrics-text").body()).endsWith("# EOF\n");
  }
}
