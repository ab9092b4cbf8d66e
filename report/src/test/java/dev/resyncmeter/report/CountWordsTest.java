package dev.resyncmeter.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A count of one takes the singular wherever the report words a count of things ({@code 1 time},
 * {@code 1 reconcile}, {@code 1 API request}), and every other count the plural: in the verdicts of
 * the table, Markdown and JSON, of the fleet report from Prometheus, and in the gate's lines. A count out of another agrees with the
 * whole ({@code 1 of 1 reconcile}, {@code 1 of 2 reconciles}).
 */
class CountWordsTest {

  /**
   * Every count 1: handler {@code waste} enqueued its one no-op update, and controller {@code waste}
   * reconciled once on it (0.01 s, 1 request), changing nothing; {@code repair} repaired state once on
   * a resync and once on its timer, and its one echo (1 request) changed nothing; {@code unmeasured}
   * has no effect series for its one resync reconcile; handler {@code elsewhere} hands its one no-op
   * update to no queue the agent sees.
   */
  static final String ONES =
      Scrapes.INFO
          + """
          informer_updates_total{handler="waste",kind="ConfigMap"} 1
          informer_noop_updates_total{cause="resync",handler="waste",kind="ConfigMap",outcome="enqueued"} 1
          informer_updates_total{handler="elsewhere",kind="Secret"} 1
          informer_noop_updates_total{cause="resync",handler="elsewhere",kind="Secret",outcome="unknown"} 1
          controller_reconcile_total{controller="waste",result="success",trigger="resync_noop"} 1
          controller_reconcile_duration_seconds_sum{controller="waste",trigger="resync_noop"} 0.01
          controller_reconcile_api_requests_total{controller="waste",trigger="resync_noop",verb="get"} 1
          controller_reconcile_effect_total{controller="waste",effect="none",trigger="resync_noop"} 1
          controller_reconcile_total{controller="repair",result="success",trigger="resync_noop"} 1
          controller_reconcile_total{controller="repair",result="success",trigger="periodic"} 1
          controller_reconcile_total{controller="repair",result="success",trigger="own_write"} 1
          controller_reconcile_duration_seconds_sum{controller="repair",trigger="resync_noop"} 0.01
          controller_reconcile_duration_seconds_sum{controller="repair",trigger="periodic"} 0.01
          controller_reconcile_duration_seconds_sum{controller="repair",trigger="own_write"} 0.01
          controller_reconcile_api_requests_total{controller="repair",trigger="own_write",verb="get"} 1
          controller_reconcile_effect_total{controller="repair",effect="changed",trigger="resync_noop"} 1
          controller_reconcile_effect_total{controller="repair",effect="changed",trigger="periodic"} 1
          controller_reconcile_effect_total{controller="repair",effect="none",trigger="own_write"} 1
          controller_reconcile_total{controller="unmeasured",result="success",trigger="change"} 1
          controller_reconcile_total{controller="unmeasured",result="success",trigger="resync_noop"} 1
          controller_reconcile_effect_total{controller="unmeasured",effect="none",trigger="change"} 1
          """;

  static final String WASTE_HANDLER = "enqueues every no-op update: a ResourceVersion check in onUpdate would have saved 1 of 1 reconcile (100%), 0.01 s of 0.01 s";
  static final String WASTE = "every reconcile on a no-op trigger changed nothing: a ResourceVersion check would save 1 reconcile, 0.01 s and 1 API request,"
      + " and lose nothing seen here";
  static final String REPAIRS = "resync repaired state 1 time in 1 no-op-triggered reconcile: look at why the watch did not carry those changes before removing it";
  static final String TIMER_REPAIRS = "the timer repaired state 1 time in 1 periodic reconcile: keep it";
  static final String ECHO_WASTE = "its own writes echoed back as 1 reconcile that changed nothing: it could skip updates whose resourceVersion it wrote itself,"
      + " and save 0.01 s and 1 API request";
  static final String NOT_MEASURED =
      "what the 1 reconcile on no-op triggers changed is not measured: the scrape has no controller_reconcile_effect_total for them (an older agent)";

  /** A count of one followed by a plural noun, or any other count by a singular one. */
  static final String WRONG_NUMBER =
      "(?s).*(\\b1 (times|reconciles|API requests|no-op updates|periodic reconciles|no-op-triggered reconciles)\\b"
          + "|\\b([02-9]|\\d\\d+) (time|reconcile|API request|no-op update|periodic reconcile|no-op-triggered reconcile)\\b).*";

  @TempDir Path dir;

  @Test
  void everyVerdictSaysOneThingInTheSingular() throws ReportException {
    ResyncReport report = ResyncReport.of(null, Scrape.parse(ONES, "ones.prom"), null);
    ResyncReport.Controller waste = controller(report, "waste");
    ResyncReport.Controller repair = controller(report, "repair");
    assertThat(report.handlers()).filteredOn(h -> h.handler().equals("waste")).singleElement().satisfies(h -> assertThat(h.verdictText()).isEqualTo(WASTE_HANDLER));
    assertThat(waste.noopVerdictText()).isEqualTo(WASTE);
    assertThat(repair.noopVerdictText()).isEqualTo(REPAIRS);
    assertThat(repair.timerVerdictText()).isEqualTo(TIMER_REPAIRS);
    assertThat(repair.echoVerdictText()).isEqualTo(ECHO_WASTE);
    assertThat(controller(report, "unmeasured").noopVerdictText()).isEqualTo(NOT_MEASURED);
  }

  @Test
  void theTableMarkdownAndJsonSayItInTheSingular() throws IOException {
    String file = Files.writeString(dir.resolve("ones.prom"), ONES).toString();
    for (String format : new String[] {"table", "markdown", "json"}) {
      ReportCommandTest.Run run = ReportCommandTest.run("--format", format, file);
      assertThat(run.exit()).as(run.err()).isZero();
      // the table wraps its lines: compare with the words joined again
      String words = run.out().replaceAll("\n +", " ");
      assertThat(words).as(format).contains(WASTE_HANDLER, WASTE, REPAIRS, TIMER_REPAIRS, ECHO_WASTE, NOT_MEASURED).doesNotMatch(WRONG_NUMBER);
    }
  }

  @Test
  void theGateSaysItInTheSingular() throws IOException {
    String file = Files.writeString(dir.resolve("ones.prom"), ONES).toString();
    ReportCommandTest.Run run = ReportCommandTest.run("--fail-on", "enqueues-noops", "--fail-on", "noop-share>50", "--fail-on", "noop-waste>50", file);
    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.err())
        .isEqualTo(
            """
            resync-meter report: fail: handler ConfigMap waste enqueues no-op updates (1 of 1)
            resync-meter report: fail: cannot check enqueues-noops for handler Secret elsewhere: it hands its 1 no-op update to no queue the agent sees
            resync-meter report: fail: controller waste reconciled on no-op triggers 1 of 1 time (100%), above 50%
            resync-meter report: fail: cannot check noop-waste>50 for controller unmeasured: what its 1 reconcile on no-op triggers changed is not measured,\
             the scrape has no controller_reconcile_effect_total for them (an older agent)
            resync-meter report: fail: controller waste reconciled on no-op triggers and changed nothing 1 of 1 time (100%), above 50%
            """);
  }

  /** The fleet report from Prometheus: one pod that repaired state once, in the table and in Markdown. */
  @Test
  void theFleetReportSaysItInTheSingular() throws IOException {
    try (FakePrometheus prometheus = new FakePrometheus()) {
      prometheus.started(PrometheusReportTest.POD_A, "00:01:00", "00:01:15", "00:02:15");
      prometheus.add("controller_reconcile_total", PrometheusReportTest.POD_A, PrometheusReportTest.RESYNC, "00:01:15", 0, "00:02:15", 1);
      prometheus.add("controller_reconcile_effect_total", PrometheusReportTest.POD_A, "controller=cm,effect=changed,trigger=resync_noop", "00:01:15", 0, "00:02:15", 1);
      for (String format : new String[] {"table", "markdown"}) {
        ReportCommandTest.Run run = ReportCommandTest.run("--prometheus", prometheus.url(), "--range", "10m", "--end", PrometheusReportTest.END, "--format", format);
        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(run.out().replaceAll("\n +", " ")).as(format)
            .containsIgnoringCase("1 pod read; exact: it started inside the range")
            .contains("resync repaired state 1 time in 1 no-op-triggered reconcile: look at why")
            .doesNotMatch(WRONG_NUMBER);
      }
    }
  }

  @Test
  void aCountOutOfAnotherAgreesWithTheWhole() {
    assertThat(ResyncReport.count(1, "time")).isEqualTo("1 time");
    assertThat(ResyncReport.count(0, "time")).isEqualTo("0 times");
    assertThat(ResyncReport.count(2, "reconcile on no-op triggers", "reconciles on no-op triggers")).isEqualTo("2 reconciles on no-op triggers");
    assertThat(ResyncReport.countOf(1, "its", 1, "reconcile")).isEqualTo("1 of its 1 reconcile");
    assertThat(ResyncReport.countOf(1, "", 2, "time")).isEqualTo("1 of 2 times");
  }

  private static ResyncReport.Controller controller(ResyncReport report, String name) {
    return report.controllers().stream().filter(c -> c.controller().equals(name)).findFirst().orElseThrow();
  }
}
