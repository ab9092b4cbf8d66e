package dev.resyncmeter.report;

import static dev.resyncmeter.report.FakePrometheus.at;
import static org.assertj.core.api.Assertions.assertThat;

import dev.resyncmeter.report.ReportCommandTest.Run;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report read from a server speaking the Prometheus query API: each series' increase from its
 * raw samples (restarts, a start inside or before the range, a series born in the range), replicas
 * summed, {@code --by}, and one line with exit 2 or 1 for every input it cannot use. The series are
 * written out here with times on 2025-01-01, so each number asserted can be checked by hand; the
 * range is 00:00:00 to 00:10:00.
 */
class PrometheusReportTest {

  static final String END = "2025-01-01T00:10:00Z";
  static final String RESYNC = "controller=cm,result=success,trigger=resync_noop";
  static final String CHANGE = "controller=cm,result=success,trigger=change";
  static final Map<String, String> POD_A = Map.of("job", "app", "instance", "10.0.0.1:9464", "cluster", "eu");
  static final Map<String, String> POD_B = Map.of("job", "app", "instance", "10.0.0.2:9464", "cluster", "us");
  static final Map<String, String> POD_C = Map.of("job", "app", "instance", "10.0.0.3:9464", "cluster", "eu");

  @RegisterExtension final FakePrometheus prometheus = new FakePrometheus();

  /**
   * Pod A starts at 00:01, counts 9 resync reconciles, restarts at 00:05 (its counter lower) and
   * counts 4 more: 13. Pod B starts at 00:00:30, counts 7, restarts at 00:06 and has counted 10 by its
   * next sample, higher than before: only its new start time shows the restart: 17. Pod C started the
   * day before: its first sample (100) is the baseline, 30 more; its change series appears at 00:05,
   * after its first sample in the range, so it counts from zero: 6.
   */
  void threePods() {
    prometheus.started(POD_A, "00:01:00", "00:01:15", "00:02:15", "00:03:15");
    prometheus.started(POD_A, "00:05:00", "00:05:15", "00:06:15");
    prometheus.add("controller_reconcile_total", POD_A, RESYNC, "00:01:15", 3, "00:02:15", 5, "00:03:15", 9, "00:05:15", 2, "00:06:15", 4);
    prometheus.add("controller_reconcile_duration_seconds_sum", POD_A, "controller=cm,trigger=resync_noop", "00:01:15", 0.25, "00:03:15", 0.75, "00:05:15", 0.5);
    prometheus.add("resync_meter_info", POD_A, "client=client-java,client_version=27.0.0,version=0.1.0", "00:01:15", 1);

    prometheus.started(POD_B, "00:00:30", "00:00:45", "00:05:30");
    prometheus.started(POD_B, "00:06:00", "00:06:15");
    prometheus.add("controller_reconcile_total", POD_B, RESYNC, "00:00:45", 1, "00:05:30", 7, "00:06:15", 10);

    prometheus.started(POD_C, "-23:50:00", "00:00:15", "00:05:00", "00:09:45");
    prometheus.add("controller_reconcile_total", POD_C, RESYNC, "00:00:15", 100, "00:05:00", 110, "00:09:45", 130);
    prometheus.add("controller_reconcile_total", POD_C, CHANGE, "00:05:00", 4, "00:09:45", 6);
    prometheus.add("informer_noop_updates_total", POD_C, "kind=ConfigMap,handler=cm,cause=resync,outcome=enqueued", "00:00:15", 50, "00:09:45", 80);
    prometheus.add("informer_updates_total", POD_C, "kind=ConfigMap,handler=cm,cause=resync,resource_version=unchanged", "00:00:15", 50, "00:09:45", 80);
    prometheus.add("informer_resync_period_seconds", POD_C, "kind=ConfigMap,handler=cm", "00:00:15", 30, "00:09:45", 60);
  }

  @Test
  void eachSeriesCountsFromItsRawSamplesAndTheReplicasAreSummed() {
    threePods();
    Run run = run("--prometheus", prometheus.url(), "--range", "10m", "--end", END, "--format", "json");
    assertThat(run.err()).isEmpty();
    assertThat(run.exit()).isZero();
    ResyncReport.Controller cm = only(report(), "cm");
    assertThat(cm.byTrigger()).isEqualTo(Map.of("resync_noop", new ResyncReport.TriggerCost(13 + 17 + 30, 0.75 + 0.5), "change", new ResyncReport.TriggerCost(6, 0)));
    assertThat(cm.noopReconciles()).isEqualTo(60);
    ResyncReport.Handler handler = report().handlers().get(0);
    assertThat(handler.noopUpdates()).isEqualTo(30);
    assertThat(handler.enqueued()).isEqualTo(30);
    assertThat(handler.resyncPeriodSeconds()).as("a gauge: its last value").isEqualTo(60);
    assertThat(run.out())
        .contains("\"source\": \"" + prometheus.url() + "\",\n  \"selector\": \"\",\n  \"end\": \"2025-01-01T00:10:00Z\",\n  \"range_seconds\": 600,\n"
            + "  \"pods\": 3,\n  \"pods_counted_from_first_sample\": 1,\n  \"window_seconds\": 570,\n  \"handlers\": [")
        .contains("{\"controller\": \"cm\", \"reconciles\": 66, \"reconcile_seconds\": 1.25, \"noop_reconciles\": 60,");
  }

  /** One query over the whole range, at its end, for the series the report reads and no others (no buckets). */
  @Test
  void theGateJudgesTheFleetsReportAndEachGroupOfIt() {
    threePods();
    Run run = run("--prometheus", prometheus.url(), "--range", "10m", "--end", END, "--fail-on", "noop-share>50");
    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.err()).startsWith("resync-meter report: fail: controller cm reconciled on no-op triggers 60 of 66 times");
    Run grouped = run("--prometheus", prometheus.url(), "--range", "10m", "--end", END, "--by", "cluster", "--fail-on", "noop-share>100");
    assertThat(grouped.exit()).isZero();
    assertThat(grouped.err()).isEmpty();
    Run perGroup = run("--prometheus", prometheus.url(), "--range", "10m", "--end", END, "--by", "cluster", "--fail-on", "noop-share>50");
    assertThat(perGroup.exit()).isEqualTo(1);
    assertThat(perGroup.err()).contains("resync-meter report: fail: in {cluster=");
  }

  @Test
  void oneInstantQueryOfARangeVectorSelectorReadsTheRange() {
    threePods();
    run("--prometheus", prometheus.url() + "/", "--range", "10m", "--end", END, "--selector", "{cluster=\"eu\"}");
    assertThat(prometheus.requests).singleElement().satisfies(r -> {
      assertThat(r.timeMillis()).isEqualTo(at("00:10:00"));
      assertThat(r.rangeMillis()).isEqualTo(600_000);
      assertThat(r.query()).startsWith("{__name__=~\"informer_notifications_total|").endsWith("resync_meter_start_time_seconds\",cluster=\"eu\"}[600000ms]")
          .contains("|controller_reconcile_duration_seconds_sum|").doesNotContain("bucket");
    });
  }

  @Test
  void aRangeThatCoversEveryPodFromItsStartIsExact() {
    prometheus.started(POD_A, "00:01:00", "00:01:15", "00:02:15");
    prometheus.add("controller_reconcile_total", POD_A, RESYNC, "00:01:15", 3, "00:02:15", 5);
    Run run = run("--prometheus", prometheus.url(), "--range", "10m", "--end", END);
    assertThat(run.out()).startsWith(
        "resync cost of " + prometheus.url() + ", 2025-01-01T00:00:00Z to 2025-01-01T00:10:00Z, over 75 s\n"
            + "  1 pod read; exact: it started inside the range\n"
            + "  its series cover 75 s of the 600 s range: rates are per second of those 75 s\n");
    // the same pod, its start before a range that begins at 00:02: its first sample there is the baseline
    Run later = run("--prometheus", prometheus.url(), "--range", "8m", "--end", END, "--format", "json");
    assertThat(later.out()).contains("\"pods_counted_from_first_sample\": 1,").contains("\"reconciles\": 0,");
    assertThat(run("--prometheus", prometheus.url(), "--range", "8m", "--end", END).out())
        .contains("\n  1 pod read; an estimate: 1 started before the range, counted from its first sample in it\n");
  }

  @Test
  void aPodThatDoesNotSayWhenItStartedCountsFromItsFirstSample() {
    prometheus.add("controller_reconcile_total", POD_A, RESYNC, "00:01:15", 3, "00:02:15", 5, "00:03:15", 1);
    Run run = run("--prometheus", prometheus.url(), "--range", "10m", "--end", END, "--format", "json");
    // 3 is the baseline, +2, then a reset to 1: 3
    assertThat(run.out()).contains("\"pods_counted_from_first_sample\": 1,").contains("\"reconciles\": 3,");
  }

  /**
   * A pod that lived 48 s of the 10 minutes (started at 00:03:00, last scraped at 00:03:48) and
   * reconciled 24 times: its rate is 24 over 48 s, not over the range; the title and a note say so.
   */
  @Test
  void aRateIsPerSecondOfTheTimeTheSeriesCoverNotOfTheWholeRange() {
    prometheus.started(POD_A, "00:03:00", "00:03:15", "00:03:48");
    prometheus.add("controller_reconcile_total", POD_A, RESYNC, "00:03:15", 4, "00:03:48", 24);
    Run table = run("--prometheus", prometheus.url(), "--range", "10m", "--end", END);
    assertThat(table.out())
        .startsWith(
            "resync cost of " + prometheus.url() + ", 2025-01-01T00:00:00Z to 2025-01-01T00:10:00Z, over 48 s\n"
                + "  1 pod read; exact: it started inside the range\n"
                + "  its series cover 48 s of the 600 s range: rates are per second of those 48 s\n")
        .contains("    reconciles 24 (0.50/s), ");
    Run json = run("--prometheus", prometheus.url(), "--range", "10m", "--end", END, "--format", "json");
    assertThat(json.out()).contains("\"range_seconds\": 600,").contains("\"window_seconds\": 48,");

    // with a pod that lived through the range beside it, the two cover the range but for its first and last 15 s
    prometheus.started(POD_C, "-23:50:00", "00:00:15", "00:05:00", "00:09:45");
    prometheus.add("controller_reconcile_total", POD_C, RESYNC, "00:00:15", 100, "00:09:45", 133);
    assertThat(run("--prometheus", prometheus.url(), "--range", "10m", "--end", END).out())
        .contains("over 570 s\n")
        .contains("\n  their series cover 570 s of the 600 s range: rates are per second of those 570 s\n")
        .contains("    reconciles 57 (0.10/s), ");
  }

  @Test
  void thePodsCoverTheUnionOfTheirTimes() {
    assertThat(FleetCounts.covered(List.of(new long[] {0, 48}, new long[] {30, 100}))).isEqualTo(100);
    assertThat(FleetCounts.covered(List.of(new long[] {20, 30}, new long[] {0, 10}))).isEqualTo(20);
    assertThat(FleetCounts.covered(List.of(new long[] {0, 100}, new long[] {10, 20}))).isEqualTo(100);
    assertThat(FleetCounts.covered(List.of(new long[] {5, 5}))).isZero();
  }

  @Test
  void byALabelOfTheScrapeConfigSplitsTheReportIntoGroupsEachAWholeReport() {
    threePods();
    Run run = run("--prometheus", prometheus.url(), "--range", "10m", "--end", END, "--format", "json", "--by", "cluster");
    assertThat(run.exit()).isZero();
    Map<String, Object> json = json(run.out());
    assertThat(json.keySet()).containsExactly("source", "selector", "end", "range_seconds", "pods", "pods_counted_from_first_sample", "by", "groups");
    assertThat(json.get("pods")).isEqualTo(3.0);
    assertThat(json.get("by")).isEqualTo(List.of("cluster"));
    List<?> groups = (List<?>) json.get("groups");
    assertThat(groups).hasSize(2);
    Map<?, ?> eu = (Map<?, ?>) groups.get(0);
    Map<?, ?> us = (Map<?, ?>) groups.get(1);
    assertThat(eu.get("labels")).isEqualTo(Map.of("cluster", "eu"));
    assertThat(eu.get("pods")).isEqualTo(2.0);
    assertThat(eu.get("pods_counted_from_first_sample")).isEqualTo(1.0);
    assertThat(((Map<?, ?>) ((List<?>) eu.get("controllers")).get(0)).get("noop_reconciles")).isEqualTo(43.0);
    assertThat(us.get("labels")).isEqualTo(Map.of("cluster", "us"));
    assertThat(us.get("pods")).isEqualTo(1.0);
    assertThat(((Map<?, ?>) ((List<?>) us.get("controllers")).get(0)).get("noop_reconciles")).isEqualTo(17.0);
    assertThat(new ArrayList<Object>(us.keySet())).containsExactly("source", "selector", "end", "range_seconds", "labels", "pods", "pods_counted_from_first_sample", "window_seconds", "handlers", "controllers", "informers");

    Run table = run("--prometheus", prometheus.url(), "--range", "10m", "--end", END, "--by", "cluster");
    assertThat(table.out()).contains("2025-01-01T00:10:00Z, cluster=\"eu\",\n  over 570 s\n  2 pods read; an estimate: 1 started").contains("\n\nresync cost of " + prometheus.url() + ", ");
    assertThat(run("--prometheus", prometheus.url(), "--range", "10m", "--end", END, "--by", "region").err())
        .isEqualTo("resync-meter report: --by region: no series read carries the label region\n");
  }

  /**
   * Echoes over a range, replicas summed: pod A (started at 00:01) reconciled 10 times on its own
   * writes, 9 of them loop steps, in 0.5 s with 10 updates; pod B (started at 00:00:30, restarted at
   * 00:06) echoed 3 times before its restart and 2 after, each changing nothing: 15 echoes, 9 loop steps.
   */
  void echoingPods() {
    prometheus.started(POD_A, "00:01:00", "00:01:15", "00:03:15");
    prometheus.add("controller_reconcile_total", POD_A, "controller=cm,result=success,trigger=own_write", "00:01:15", 4, "00:03:15", 10);
    prometheus.add("controller_reconcile_duration_seconds_sum", POD_A, "controller=cm,trigger=own_write", "00:01:15", 0.25, "00:03:15", 0.5);
    prometheus.add("controller_reconcile_api_requests_total", POD_A, "controller=cm,trigger=own_write,verb=update", "00:01:15", 4, "00:03:15", 10);
    prometheus.add("controller_reconcile_effect_total", POD_A, "controller=cm,trigger=own_write,effect=changed", "00:01:15", 3, "00:03:15", 9);
    prometheus.add("controller_reconcile_effect_total", POD_A, "controller=cm,trigger=own_write,effect=unchanged", "00:01:15", 1, "00:03:15", 1);
    prometheus.add("informer_own_write_updates_total", POD_A, "kind=ConfigMap,handler=cm", "00:01:15", 4, "00:03:15", 10);

    prometheus.started(POD_B, "00:00:30", "00:00:45", "00:05:30");
    prometheus.started(POD_B, "00:06:00", "00:06:15");
    prometheus.add("controller_reconcile_total", POD_B, "controller=cm,result=success,trigger=own_write", "00:00:45", 1, "00:05:30", 3, "00:06:15", 2);
    prometheus.add("controller_reconcile_effect_total", POD_B, "controller=cm,trigger=own_write,effect=none", "00:00:45", 1, "00:05:30", 3, "00:06:15", 2);
  }

  @Test
  void theFleetReportCountsEchoesAndLoopStepsOverTheRangeAndTheGateNamesTheLoopingGroup() {
    echoingPods();
    ResyncReport report = report();
    ResyncReport.Controller cm = only(report, "cm");
    assertThat(cm.echoes()).isEqualTo(new ResyncReport.Echoes(15, 0.5, 10.0, new ResyncReport.Effects(5, 1, 9), 9));
    assertThat(cm.echoVerdict()).isEqualTo(ResyncReport.EchoVerdict.ECHO_LOOP);
    assertThat(report.handlers()).singleElement().satisfies(h -> assertThat(h.ownWriteUpdates()).isEqualTo(10));
    assertThat(run("--prometheus", prometheus.url(), "--range", "10m", "--end", END, "--format", "json").out())
        .contains("\"echoes\": {\"reconciles\": 15, \"seconds\": 0.5, \"api_requests\": 10, \"loop_steps\": 9}, \"echo_verdict\": \"echo_loop\"");

    Run gate = run("--prometheus", prometheus.url(), "--range", "10m", "--end", END, "--fail-on", "own-write-loops");
    assertThat(gate.exit()).isEqualTo(1);
    assertThat(gate.err())
        .isEqualTo("resync-meter report: fail: controller cm loops on its own writes: 9 of its 15 reconciles on its own writes changed something again\n");
    // by cluster: only pod A's group loops; pod B's echoes all settled
    Run grouped = run("--prometheus", prometheus.url(), "--range", "10m", "--end", END, "--by", "cluster", "--fail-on", "own-write-loops");
    assertThat(grouped.exit()).isEqualTo(1);
    assertThat(grouped.err())
        .isEqualTo("resync-meter report: fail: in {cluster=eu}: controller cm loops on its own writes: 9 of its 10 reconciles on its own writes changed something again\n");
    assertThat(grouped.out())
        .contains("=> its own writes echoed back as 5 reconciles that changed nothing: it could skip updates whose");
  }

  /** Two programs that share a controller name are not replicas of one: each keeps its job. */
  @Test
  void aControllerNameInTwoJobsIsTwoControllers() {
    threePods();
    Map<String, String> other = Map.of("job", "other", "instance", "10.0.0.9:8080");
    prometheus.started(other, "00:02:00", "00:02:15");
    prometheus.add("controller_reconcile_total", other, RESYNC, "00:02:15", 5);
    ResyncReport report = report();
    assertThat(report.controllers()).extracting(ResyncReport.Controller::controller).containsExactly("cm (job app)", "cm (job other)");
    assertThat(report.controllers().get(1).noopReconciles()).isEqualTo(5);
    assertThat(report.handlers()).extracting(ResyncReport.Handler::handler).containsExactly("cm (job app)");
  }

  @Test
  void aRangeTooLargeForTheServerIsReadInPiecesAndTheBoundarySampleCountsOnce() {
    threePods();
    String whole = run("--prometheus", prometheus.url(), "--range", "10m", "--end", END, "--format", "json").out();
    prometheus.requests.clear();
    prometheus.answer(r -> r.rangeMillis() > 150_000 ? FakePrometheus.error(422, "execution", "query processing would load too many samples into memory in query execution") : null);
    Run run = run("--prometheus", prometheus.url(), "--range", "10m", "--end", END, "--format", "json");
    assertThat(run.err()).isEqualTo("resync-meter report: " + prometheus.url() + " refused 10m in one query (too many samples): read it in 4 pieces\n");
    assertThat(run.exit()).isZero();
    assertThat(run.out()).isEqualTo(whole);
    assertThat(prometheus.requests.stream().filter(r -> r.rangeMillis() == 150_000).map(FakePrometheus.Request::timeMillis))
        .containsExactly(at("00:02:30"), at("00:05:00"), at("00:07:30"), at("00:10:00"));
  }

  @Test
  void headersAndTheBearerTokenAreSent(@TempDir Path dir) throws IOException {
    threePods();
    Path token = Files.writeString(dir.resolve("token"), "s3cret\n");
    Run run = run("--prometheus", prometheus.url(), "--end", END, "--bearer-token-file", token.toString(), "--header", "X-Scope-OrgID: team-a", "--header", "X-Other:  b ");
    assertThat(run.exit()).isZero();
    Map<String, List<String>> headers = prometheus.requests.get(0).headers();
    assertThat(headers.get("Authorization")).containsExactly("Bearer s3cret");
    assertThat(headers.get("X-scope-orgid")).containsExactly("team-a");
    assertThat(headers.get("X-other")).containsExactly("b");
  }

  @Test
  void basicAuthIsSentWithThePasswordFromItsFile(@TempDir Path dir) throws IOException {
    threePods();
    Path password = Files.writeString(dir.resolve("password"), "pass:word with spaces\n");
    Run run = run("--prometheus", prometheus.url(), "--end", END, "--user", "grafana", "--password-file", password.toString());
    assertThat(run.exit()).as(run.err()).isZero();
    String credentials = java.util.Base64.getEncoder().encodeToString("grafana:pass:word with spaces".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    assertThat(prometheus.requests).allSatisfy(r -> assertThat(r.headers().get("Authorization")).containsExactly("Basic " + credentials));
  }

  @Test
  void markdownWorksForEverySource() {
    threePods();
    Run fleet = run("--prometheus", prometheus.url(), "--range", "10m", "--end", END, "--format", "markdown");
    assertThat(fleet.out())
        .startsWith(
            "### Resync cost of " + prometheus.url() + ", 2025-01-01T00:00:00Z to 2025-01-01T00:10:00Z, over 570 s\n\n"
                + "3 pods read; an estimate: 1 started before the range, counted from its first sample in it.\n"
                + "Their series cover 570 s of the 600 s range: rates are per second of those 570 s.\n")
        .contains("| Controller | Reconciles |")
        .contains("\n| cm | 66 | 1.3 s | 60 (91%) | 1.3 s (100%) | 0 |  |  |  |\n")
        .contains("\n| ConfigMap | cm | 60 s | 30 | 30 (100%): resync 30 | 30 | 0 | 0 | enqueues every no-op update:");
    Run file = run("--format", "markdown", ReportCommandTest.scrape("josdk.prom"));
    assertThat(file.exit()).isZero();
    assertThat(file.out()).startsWith("### Resync cost of " + ReportCommandTest.scrape("josdk.prom") + ", since the agent started\n\n**Handlers**\n").contains("**Informers**");
    assertThat(file.out().lines().filter(l -> l.startsWith("|")))
        .allSatisfy(l -> assertThat(l.replace("\\|", "").chars().filter(c -> c == '|').count()).isIn(5L, 10L));
  }

  // ---- what cannot be used ----------------------------------------------------------------------

  @Test
  void aServerThatCannotBeReadGivesOneLineAndExitOne() throws IOException {
    int closed;
    try (ServerSocket socket = new ServerSocket(0)) {
      closed = socket.getLocalPort();
    }
    assertError(run("--prometheus", "http://127.0.0.1:" + closed), "cannot reach http://127.0.0.1:" + closed + ": connection refused");
    String url = prometheus.url();

    prometheus.answer(r -> new FakePrometheus.Answer(401, "text/plain", "Unauthorized\n"));
    assertError(run("--prometheus", url), url + " answered HTTP 401 Unauthorized: the server asks for credentials and none were given (--user/--password-file, --bearer-token-file, --header)");
    prometheus.answer(r -> new FakePrometheus.Answer(403, "text/plain", "Forbidden\n"));
    assertError(run("--prometheus", url, "--header", "X-Scope-OrgID: team-b"), url + " answered HTTP 403 Forbidden: the credentials given are refused (--header)");

    // a selector the server rejects: SelectorTest

    prometheus.answer(r -> FakePrometheus.error(422, "execution", "query processing would load too many samples into memory in query execution"));
    assertError(run("--prometheus", url, "--range", "3m"),
        url + " refuses even 45 s of the selected series (query processing would load too many samples into memory in query execution): pick fewer with --selector");

    prometheus.answer(r -> FakePrometheus.error(503, "timeout", "query timed out in expression evaluation"));
    assertError(run("--prometheus", url), url + " failed the query (HTTP 503, timeout): query timed out in expression evaluation");
  }

  @Test
  void noSeriesAtAllIsSaidWithTheRange() {
    assertError(run("--prometheus", prometheus.url(), "--end", END, "--selector", "namespace=\"payments\""),
        prometheus.url() + " holds no resync-meter series matching {namespace=\"payments\"} from 2024-12-31T23:10:00Z to 2025-01-01T00:10:00Z (is the agent's endpoint scraped?)");
  }

  @Test
  void aServerThatIsNotPrometheusIsSaidSo() {
    String url = prometheus.url();
    String api = " does not answer as the Prometheus query API (";
    assertError(run("--prometheus", url + "/metrics"), url + "/metrics" + api + url + "/metrics/api/v1/query): HTTP 404 with no JSON (it starts: 404 page not found)");
    prometheus.answer(r -> new FakePrometheus.Answer(200, "text/html", "<html><body>Grafana</body></html>"));
    assertError(run("--prometheus", url), url + api + url + "/api/v1/query): HTTP 200 with no JSON (it starts: <html><body>Grafana</body></html>)");
    prometheus.answer(r -> new FakePrometheus.Answer(200, "text/plain", "resync_meter_info{client=\"client-java\"} 1\n"));
    assertError(run("--prometheus", url), url + api + url + "/api/v1/query): HTTP 200 with no JSON (it starts: resync_meter_info{client=\"client-java\"} 1)");
    prometheus.answer(r -> new FakePrometheus.Answer(200, "application/json", "{\"data\": []}"));
    assertError(run("--prometheus", url), url + api + url + "/api/v1/query): HTTP 200 with JSON that has no status");
    prometheus.answer(r -> new FakePrometheus.Answer(200, "application/json", "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[]}}"));
    assertError(run("--prometheus", url), url + api + url + "/api/v1/query): its answer holds no matrix of samples");
    assertError(run("--prometheus", "ftp://prometheus"), "'ftp://prometheus' is not an http URL such as http://prometheus:9090");
  }

  @Test
  void aServerThatDoesNotAnswerInTimeIsSaidSo() {
    prometheus.answer(r -> {
      try {
        Thread.sleep(1_500);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return null;
    });
    assertError(run("--prometheus", prometheus.url(), "--timeout", "300ms"), "no answer from " + prometheus.url() + " within 300 ms (--timeout)");
  }

  @Test
  void anUnusableTokenOrCaFileGivesOneLineAndExitOne(@TempDir Path dir) throws IOException {
    String url = prometheus.url();
    assertError(run("--prometheus", url, "--bearer-token-file", dir.resolve("none").toString()), "cannot read --bearer-token-file " + dir.resolve("none") + ": no such file");
    Path empty = Files.writeString(dir.resolve("empty"), "\n");
    assertError(run("--prometheus", url, "--bearer-token-file", empty.toString()), "--bearer-token-file " + empty + " is empty");
    assertError(run("--prometheus", url, "--ca-file", dir.resolve("ca.pem").toString()), "cannot read --ca-file " + dir.resolve("ca.pem") + ": no such file");
    Path notPem = Files.writeString(dir.resolve("ca.pem"), "not a certificate\n");
    assertError(run("--prometheus", url, "--ca-file", notPem.toString()), "--ca-file " + notPem + " holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
    assertError(run("--prometheus", url, "--ca-file", dir.toString()), "cannot read --ca-file " + dir + ": is a directory");
  }

  @Test
  void aBadCommandLineGivesItsProblemAndTheUsageWithExitTwo() {
    String url = prometheus.url();
    Map<List<String>, String> problems = new java.util.LinkedHashMap<>();
    problems.put(List.of("--range", "1 week"), "--range takes a duration such as 30m, 1h, 7d or 1h30m, not '1 week'");
    problems.put(List.of("--range", "1.5h"), "--range takes a duration such as 30m, 1h, 7d or 1h30m, not '1.5h'");
    problems.put(List.of("--range", "0s"), "--range must be longer than zero, not '0s'");
    problems.put(List.of("--end", "yesterday"), "--end takes an RFC 3339 time such as 2025-06-01T12:00:00Z, not 'yesterday'");
    problems.put(List.of("--end", "2025-01-01 00:00"), "--end takes an RFC 3339 time such as 2025-06-01T12:00:00Z, not '2025-01-01 00:00'");
    problems.put(List.of("--by", "cluster name"), "--by takes label names such as cluster or cluster,namespace, not 'cluster name'");
    problems.put(List.of("--by", ""), "--by takes label names such as cluster or cluster,namespace, not ''");
    problems.put(List.of("--header", "X-Scope-OrgID"), "--header takes 'Name: value', such as 'X-Scope-OrgID: team-a', not 'X-Scope-OrgID'");
    problems.put(List.of("--header", "Bad Name: x"), "--header takes 'Name: value', such as 'X-Scope-OrgID: team-a', not 'Bad Name: x'");
    problems.put(List.of("--selector", "{namespace=\"a\""), "--selector '{namespace=\"a\"' at its end: a } is missing to close the { at character 1");
    problems.put(List.of("--selector", "up{job=\"a\"}"),
        "--selector 'up{job=\"a\"}' at character 1 ('up{job=\"a\"}'): a metric name (up) picks one of the many metrics the report reads:"
            + " give label matchers only, such as '{job=\"a\"}'");
    problems.put(List.of("--timeout", "soon"), "--timeout takes a duration such as 30m, 1h, 7d or 1h30m, not 'soon'");
    problems.put(List.of("--timeout"), "--timeout needs a value");
    problems.put(List.of("--url", "http://127.0.0.1:9464/metrics"), "--prometheus reads a server: not with --url, --window or saved scrapes");
    for (Map.Entry<List<String>, String> problem : problems.entrySet()) {
      List<String> args = new ArrayList<>(List.of("--prometheus", url));
      args.addAll(problem.getKey());
      Run run = run(args.toArray(String[]::new));
      assertThat(run.exit()).as(String.join(" ", args)).isEqualTo(2);
      assertThat(run.out()).isEmpty();
      assertThat(run.err()).startsWith("resync-meter report: " + problem.getValue() + "\n").contains(ReportCommand.USAGE);
    }
    assertThat(run("--range", "7d").err()).startsWith("resync-meter report: --range needs --prometheus URL\n");
    assertThat(prometheus.requests).isEmpty();
  }

  // ---- helpers ------------------------------------------------------------------------------------

  static Run run(String... args) {
    Run run = ReportCommandTest.run(args);
    assertThat(run.err()).as("never a Java class name").doesNotContainPattern("(java|javax|sun)\\.[a-z]+\\.|Exception");
    return run;
  }

  /** The report of the fake's series over the test's range, as the command computes it. */
  private ResyncReport report() {
    Run run = run("--prometheus", prometheus.url(), "--range", "10m", "--end", END, "--format", "json");
    assertThat(run.exit()).as(run.err()).isZero();
    return report(run.out());
  }

  /** A report back from its JSON: enough of it to compare (the controllers' and handlers' numbers). */
  private ResyncReport report(String json) {
    PrometheusOptions options = new PrometheusOptions();
    options.url = prometheus.url();
    options.rangeMillis = 600_000;
    try {
      Map<Map<String, String>, java.util.TreeMap<Long, Double>> series = new java.util.HashMap<>();
      for (FakePrometheus.Series s : prometheus.series) {
        series.put(s.labels(), new java.util.TreeMap<>(s.samples().subMap(at("00:00:00"), true, at("00:10:00"), true)));
      }
      series.values().removeIf(Map::isEmpty);
      ResyncReport computed = FleetCounts.of(series, options, java.time.Instant.parse(END)).groups().get(0).report();
      assertThat(JsonFormat.render(computed, prometheus.url())).as("the command printed what the computation gives")
          .isEqualTo(json.replaceAll("\n  \"(selector|end|range_seconds|pods|pods_counted_from_first_sample)\": [^\n]*", ""));
      return computed;
    } catch (ReportException e) {
      throw new AssertionError(e);
    }
  }

  private static ResyncReport.Controller only(ResyncReport report, String name) {
    return report.controllers().stream().filter(c -> c.controller().equals(name)).findFirst().orElseThrow();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> json(String text) {
    try {
      return (Map<String, Object>) Json.parse(text);
    } catch (Json.NotJson e) {
      throw new AssertionError(e.getMessage() + "\n" + text);
    }
  }

  private static void assertError(Run run, String line) {
    assertThat(run.out()).isEmpty();
    assertThat(run.err()).isEqualTo("resync-meter report: " + line + "\n");
    assertThat(run.exit()).isEqualTo(1);
  }
}
