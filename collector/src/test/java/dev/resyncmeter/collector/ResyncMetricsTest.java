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
  void theStartTimeSaysWhenTheCountsStartedInUnixSeconds() {
    double before = System.currentTimeMillis() / 1000.0;
    ResyncMetrics started = new ResyncMetrics();
    double after = System.currentTimeMillis() / 1000.0;
    String line = started.scrape(null).body().lines().filter(l -> l.startsWith("resync_meter_start_time_seconds ")).findFirst().orElseThrow();
    assertThat(Double.parseDouble(line.substring(line.indexOf(' ') + 1))).isBetween(before, after);
    assertThat(started.scrape(null).body()).contains("# TYPE resync_meter_start_time_seconds gauge\n");
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
    assertThat(types).isEqualTo(11);
    assertThat(helps).isEqualTo(types);
  }

  @Test
  void handlersPastTheCapShareTheOverflowSeriesAndEachUseIsCounted() {
    ResyncMetrics capped = new ResyncMetrics(2);
    for (String handler : new String[] {"a", "b", "c", "d", "a", "c"}) {
      capped.handler("ConfigMap", handler).notification(NotificationType.ADD);
    }
    assertThat(capped.scrape(null).body())
        .contains("informer_notifications_total{handler=\"a\",kind=\"ConfigMap\",type=\"add\"} 2.0")
        .contains("informer_notifications_total{handler=\"b\",kind=\"ConfigMap\",type=\"add\"} 1.0")
        .contains("informer_notifications_total{handler=\"<overflow>\",kind=\"ConfigMap\",type=\"add\"} 3.0")
        .doesNotContain("handler=\"c\"")
        .doesNotContain("handler=\"d\"")
        .contains("resync_meter_label_overflow_total{label=\"handler\"} 3.0")
        .contains("resync_meter_label_overflow_total{label=\"kind\"} 0.0");
    assertThat(capped.handler("ConfigMap", "c")).isSameAs(capped.handler("ConfigMap", "d"));
  }

  @Test
  void kindsAreCappedOnceForInformersAndHandlersAlike() {
    ResyncMetrics capped = new ResyncMetrics(1);
    capped.informer("ConfigMap").resync();
    capped.informer("Pod").resync();
    capped.handler("Secret", "h").notification(NotificationType.DELETE);
    capped.handler("ConfigMap", "h").notification(NotificationType.DELETE);
    assertThat(capped.scrape(null).body())
        .contains("informer_resyncs_total{kind=\"ConfigMap\"} 1.0")
        .contains("informer_resyncs_total{kind=\"<overflow>\"} 1.0")
        .contains("informer_notifications_total{handler=\"h\",kind=\"<overflow>\",type=\"delete\"} 1.0")
        .contains("informer_notifications_total{handler=\"h\",kind=\"ConfigMap\",type=\"delete\"} 1.0")
        .contains("resync_meter_label_overflow_total{label=\"kind\"} 2.0")
        .contains("resync_meter_label_overflow_total{label=\"handler\"} 0.0");
  }

  @Test
  void controllersQueuesAndComponentsAreCappedEachOnItsOwn() {
    ResyncMetrics capped = new ResyncMetrics(1);
    capped.controller("c1").reconciled(ThreadContext.current().lastRow(), Trigger.CHANGE, ReconcileResult.SUCCESS, 1_000_000);
    capped.controller("c2").reconciled(ThreadContext.current().lastRow(), Trigger.CHANGE, ReconcileResult.SUCCESS, 1_000_000);
    capped.controller("c3").reconciled(ThreadContext.current().lastRow(), Trigger.CHANGE, ReconcileResult.SUCCESS, 1_000_000);
    for (String name : new String[] {"q1", "q2"}) {
      new ModelQueue(capped.queue(name)).add("item");
    }
    capped.error("x");
    capped.error("y");
    assertThat(capped.scrape(null).body())
        .contains("controller_reconcile_total{controller=\"c1\",result=\"success\",trigger=\"change\"} 1.0")
        .contains("controller_reconcile_total{controller=\"<overflow>\",result=\"success\",trigger=\"change\"} 2.0")
        .contains("workqueue_adds_total{name=\"q1\"} 1.0")
        .contains("workqueue_adds_total{name=\"<overflow>\"} 1.0")
        .contains("resync_meter_errors_total{component=\"x\"} 1.0")
        .contains("resync_meter_errors_total{component=\"<overflow>\"} 1.0")
        .contains("resync_meter_label_overflow_total{label=\"controller\"} 2.0")
        .contains("resync_meter_label_overflow_total{label=\"name\"} 1.0")
        .contains("resync_meter_label_overflow_total{label=\"component\"} 1.0");
  }

  @Test
  void theDefaultCapKeeps200ValuesPerLabel() {
    for (int i = 0; i < 250; i++) {
      metrics.handler("ConfigMap", "handler-" + i).notification(NotificationType.ADD);
    }
    String body = scrape();
    assertThat(body.lines().filter(l -> l.startsWith("informer_notifications_total{handler=\"handler-"))).hasSize(200);
    assertThat(body)
        .contains("informer_notifications_total{handler=\"<overflow>\",kind=\"ConfigMap\",type=\"add\"} 50.0")
        .contains("resync_meter_label_overflow_total{label=\"handler\"} 50.0");
  }

  @Test
  void eachInstrumentationPartShowsWhetherItCountsAtEveryScrape() {
    java.util.concurrent.atomic.AtomicBoolean informerOn = new java.util.concurrent.atomic.AtomicBoolean(true);
    metrics.instrumentation("clientjava-informer", informerOn::get);
    metrics.instrumentation("clientjava-workqueue", () -> true);
    assertThat(scrape())
        .contains("resync_meter_instrumentation_active{component=\"clientjava-informer\"} 1.0")
        .contains("resync_meter_instrumentation_active{component=\"clientjava-workqueue\"} 1.0");

    informerOn.set(false);
    assertThat(scrape())
        .contains("resync_meter_instrumentation_active{component=\"clientjava-informer\"} 0.0")
        .contains("resync_meter_instrumentation_active{component=\"clientjava-workqueue\"} 1.0");
  }

  @Test
  void aCapBelowOneIsRefused() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> new ResyncMetrics(0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void theAcceptHeaderChoosesOpenMetrics() {
    assertThat(metrics.scrape("application/openmetrics-text; version=1.0.0").contentType()).startsWith("application/openmetrics-text");
    assertThat(metrics.scrape("text/plain").contentType()).startsWith("text/plain; version=0.0.4");
    assertThat(metrics.scrape(null).contentType()).startsWith("text/plain; version=0.0.4");
    assertThat(metrics.scrape("application/openmetrics-text").body()).endsWith("# EOF\n");
  }

  @Test
  void reconcileDurationsAreCumulativeBucketsWithTheirBoundsInclusive() {
    ControllerMetrics controller = metrics.controller("c");
    controller.reconciled(ThreadContext.current().lastRow(), Trigger.RESYNC_NOOP, ReconcileResult.SUCCESS, 5_000_000); // exactly 5 ms: le="0.005"
    controller.reconciled(ThreadContext.current().lastRow(), Trigger.RESYNC_NOOP, ReconcileResult.SUCCESS, 7_000_000);
    controller.reconciled(ThreadContext.current().lastRow(), Trigger.RESYNC_NOOP, ReconcileResult.ERROR, 30_000_000);
    controller.reconciled(ThreadContext.current().lastRow(), Trigger.RESYNC_NOOP, ReconcileResult.SUCCESS, 61_000_000_000L); // past the last bound
    String series = "controller_reconcile_duration_seconds_bucket{controller=\"c\",trigger=\"resync_noop\",le=";
    assertThat(scrape())
        .contains(series + "\"0.005\"} 1\n")
        .contains(series + "\"0.01\"} 2\n")
        .contains(series + "\"0.025\"} 2\n")
        .contains(series + "\"0.05\"} 3\n")
        .contains(series + "\"60.0\"} 3\n")
        .contains(series + "\"+Inf\"} 4\n")
        .contains("controller_reconcile_duration_seconds_count{controller=\"c\",trigger=\"resync_noop\"} 4\n")
        .contains("controller_reconcile_duration_seconds_sum{controller=\"c\",trigger=\"resync_noop\"} 61.042\n")
        .contains("controller_reconcile_total{controller=\"c\",result=\"success\",trigger=\"resync_noop\"} 3.0")
        .contains("controller_reconcile_total{controller=\"c\",result=\"error\",trigger=\"resync_noop\"} 1.0")
        // Only triggers that had a reconcile are exported.
        .doesNotContain("trigger=\"change\"");
  }

  @Test
  void aHandlerCountsEachCallOnceAndExportsTheTotalsAsSums() {
    HandlerMetrics handler = metrics.handler("ConfigMap", "h");
    handler.update(UpdateCause.RESYNC, true, NoopOutcome.ENQUEUED);
    handler.update(UpdateCause.RESYNC, true, NoopOutcome.DROPPED);
    handler.update(UpdateCause.WATCH, false, NoopOutcome.UNKNOWN);
    handler.notification(NotificationType.ADD);
    String labels = "handler=\"h\",kind=\"ConfigMap\"";
    assertThat(scrape())
        .contains("informer_notifications_total{" + labels + ",type=\"update\"} 3.0")
        .contains("informer_notifications_total{" + labels + ",type=\"add\"} 1.0")
        .doesNotContain("type=\"delete\"")
        .contains("informer_updates_total{cause=\"resync\"," + labels + ",resource_version=\"unchanged\"} 2.0")
        .contains("informer_updates_total{cause=\"watch\"," + labels + ",resource_version=\"changed\"} 1.0")
        .doesNotContain("informer_updates_total{cause=\"watch\"," + labels + ",resource_version=\"unchanged\"}")
        .contains("informer_noop_updates_total{cause=\"resync\"," + labels + ",outcome=\"enqueued\"} 1.0")
        .contains("informer_noop_updates_total{cause=\"resync\"," + labels + ",outcome=\"dropped\"} 1.0");
  }

  @Test
  void theCollectorsOwnCountsServeInOpenMetricsToo() {
    metrics.controller("c").reconciled(ThreadContext.current().lastRow(), Trigger.CHANGE, ReconcileResult.SUCCESS, 1_000_000);
    String body = metrics.scrape("application/openmetrics-text; version=1.0.0").body();
    assertThat(body)
        .contains("# TYPE controller_reconcile counter\n")
        .contains("controller_reconcile_total{controller=\"c\",result=\"success\",trigger=\"change\"} 1.0\n")
        .contains("# TYPE controller_reconcile_duration_seconds histogram\n")
        .contains("controller_reconcile_duration_seconds_count{controller=\"c\",trigger=\"change\"} 1\n")
        .endsWith("# EOF\n");
  }

  @Test
  void restClientRequestsCountByCodeMethodAndHostWithClientGoBuckets() {
    RestClientMetrics rest = metrics.restClient();
    rest.requestFinished("127.0.0.1", 6443, "GET", 200, 3_000_000);
    rest.requestFinished("127.0.0.1", 6443, "get", 200, 30_000_000);
    rest.requestFinished("127.0.0.1", 6443, "PUT", 409, 1_000_000);
    rest.requestFinished("127.0.0.1", 6443, "GET", RestClientMetrics.NO_RESPONSE, 1_000_000);
    assertThat(scrape())
        .contains("rest_client_requests_total{code=\"200\",host=\"127.0.0.1:6443\",method=\"GET\"} 2.0")
        .contains("rest_client_requests_total{code=\"409\",host=\"127.0.0.1:6443\",method=\"PUT\"} 1.0")
        .contains("rest_client_requests_total{code=\"<error>\",host=\"127.0.0.1:6443\",method=\"GET\"} 1.0")
        .contains("rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"GET\",le=\"0.005\"} 2")
        .contains("rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"GET\",le=\"0.025\"} 2")
        .contains("rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"GET\",le=\"0.1\"} 3")
        .contains("rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"GET\",le=\"60.0\"} 3")
        .contains("rest_client_request_duration_seconds_count{host=\"127.0.0.1:6443\",verb=\"PUT\"} 1");
  }

  @Test
  void anApiRequestCountsUnderTheReconcileRunningOnItsThreadElseTheHandlerCallElseNowhere() throws Exception {
    ControllerMetrics controller = metrics.controller("web");
    Thread worker =
        new Thread(
            () -> {
              ThreadContext context = ThreadContext.current();
              metrics.apiRequestSent(context, ApiVerb.LIST, "ignored: no call runs");
              context.reconcile().began(controller, Trigger.RESYNC_NOOP);
              metrics.apiRequestSent(context, ApiVerb.GET, "ignored: the reconcile wins");
              metrics.apiRequestSent(context, ApiVerb.GET, null);
              context.reconcile().over();
              context.handlerCall().begin();
              context.handlerCall().classify(Trigger.RELIST_NOOP);
              metrics.apiRequestSent(context, ApiVerb.PATCH, "web-handler");
              context.handlerCall().end();
              metrics.apiRequestSent(context, ApiVerb.WATCH, "web-handler");
            });
    worker.start();
    worker.join(10_000);
    assertThat(scrape())
        .contains("controller_reconcile_api_requests_total{controller=\"web\",trigger=\"resync_noop\",verb=\"get\"} 2.0")
        .contains("controller_reconcile_api_requests_total{controller=\"web-handler\",trigger=\"relist_noop\",verb=\"patch\"} 1.0")
        .doesNotContain("verb=\"list\"")
        .doesNotContain("verb=\"watch\"");
  }

  @Test
  void noRegistryIsBuiltBeforeTheFirstScrapeYetItShowsEveryMeterDescribedBefore() {
    metrics.informer("Pod").resync();
    metrics.handler("Pod", "h").resyncPeriodMillis(30_000);
    metrics.error("clientjava-informer");
    metrics.instrumentation("clientjava-informer", () -> true);
    metrics.info("1.2.3", "client-java", "27.0.0");
    assertThat(metrics.registryBuilt()).as("registry built before any scrape").isFalse();

    assertThat(scrape())
        .contains("informer_resyncs_total{kind=\"Pod\"} 1.0")
        .contains("informer_relists_total{kind=\"Pod\",reason=\"expired\"} 0.0")
        .contains("informer_resync_period_seconds{handler=\"h\",kind=\"Pod\"} 30.0")
        .contains("resync_meter_errors_total{component=\"clientjava-informer\"} 1.0")
        .contains("resync_meter_instrumentation_active{component=\"clientjava-informer\"} 1.0")
        .contains("resync_meter_info{client=\"client-java\",client_version=\"27.0.0\",version=\"1.2.3\"} 1")
        .contains("resync_meter_label_overflow_total{label=\"kind\"} 0.0")
        .contains("resync_meter_start_time_seconds ");
    assertThat(metrics.registryBuilt()).isTrue();
  }

  @Test
  void metersDescribedAfterTheFirstScrapeAppearInTheNextAndKeepCounting() {
    scrape();
    InformerMetrics informer = metrics.informer("Secret");
    informer.resync();
    metrics.error("clientjava-workqueue");
    metrics.error("clientjava-workqueue");
    assertThat(scrape())
        .contains("informer_resyncs_total{kind=\"Secret\"} 1.0")
        .contains("resync_meter_errors_total{component=\"clientjava-workqueue\"} 2.0");
    informer.resync();
    assertThat(scrape()).contains("informer_resyncs_total{kind=\"Secret\"} 2.0");
  }
}
