package dev.resyncmeter.report;

import static dev.resyncmeter.report.Scrapes.INFO;
import static dev.resyncmeter.report.Scrapes.controller;
import static dev.resyncmeter.report.Scrapes.linesWhere;
import static dev.resyncmeter.report.Scrapes.report;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Echoes: reconciles on the trigger {@code own_write}, an update that the controller's own write
 * sent back through the watch. A controller that settles has echoes that change nothing; one whose
 * echoes change something again (loop steps) writes, echoes and writes again. Each scrape is written
 * out here, so every number asserted can be checked by hand.
 */
class EchoesTest {

  /**
   * {@code cm-settle}: 6 changes, each written once (a new resourceVersion), so 6 echoes (one failed),
   * 0.12 s and 12 requests; its echoes wrote nothing (2) or only what was there (4). Its handler saw
   * 12 updates, 6 of them echoes.
   */
  static final String SETTLES =
      """
      informer_updates_total{handler="cm-settle",kind="ConfigMap"} 12
      informer_own_write_updates_total{handler="cm-settle",kind="ConfigMap"} 6
      workqueue_trigger_adds_total{name="cm-settle",trigger="own_write"} 6
      controller_reconcile_total{controller="cm-settle",result="success",trigger="change"} 6
      controller_reconcile_total{controller="cm-settle",result="success",trigger="own_write"} 5
      controller_reconcile_total{controller="cm-settle",result="error",trigger="own_write"} 1
      controller_reconcile_duration_seconds_sum{controller="cm-settle",trigger="change"} 0.6
      controller_reconcile_duration_seconds_sum{controller="cm-settle",trigger="own_write"} 0.12
      controller_reconcile_api_requests_total{controller="cm-settle",trigger="change",verb="get"} 6
      controller_reconcile_api_requests_total{controller="cm-settle",trigger="change",verb="update"} 6
      controller_reconcile_api_requests_total{controller="cm-settle",trigger="own_write",verb="get"} 6
      controller_reconcile_api_requests_total{controller="cm-settle",trigger="own_write",verb="update"} 6
      controller_reconcile_effect_total{controller="cm-settle",effect="changed",trigger="change"} 6
      controller_reconcile_effect_total{controller="cm-settle",effect="none",trigger="own_write"} 2
      controller_reconcile_effect_total{controller="cm-settle",effect="unchanged",trigger="own_write"} 4
      """;

  /**
   * {@code cm-loop}: 2 changes started it; of its 40 echoes (2.0 s, 80 requests) 38 changed
   * something again (a timestamp it writes on every reconcile), 2 did not.
   */
  static final String LOOPS =
      """
      controller_reconcile_total{controller="cm-loop",result="success",trigger="change"} 2
      controller_reconcile_total{controller="cm-loop",result="success",trigger="own_write"} 40
      controller_reconcile_duration_seconds_sum{controller="cm-loop",trigger="change"} 0.1
      controller_reconcile_duration_seconds_sum{controller="cm-loop",trigger="own_write"} 2
      controller_reconcile_api_requests_total{controller="cm-loop",trigger="change",verb="get"} 2
      controller_reconcile_api_requests_total{controller="cm-loop",trigger="change",verb="update"} 2
      controller_reconcile_api_requests_total{controller="cm-loop",trigger="own_write",verb="get"} 40
      controller_reconcile_api_requests_total{controller="cm-loop",trigger="own_write",verb="update"} 40
      controller_reconcile_effect_total{controller="cm-loop",effect="changed",trigger="change"} 2
      controller_reconcile_effect_total{controller="cm-loop",effect="changed",trigger="own_write"} 38
      controller_reconcile_effect_total{controller="cm-loop",effect="unchanged",trigger="own_write"} 2
      """;

  /** {@code cm-quiet}: writes nothing, so it has no echo and no own_write series. */
  static final String QUIET =
      """
      controller_reconcile_total{controller="cm-quiet",result="success",trigger="change"} 3
      controller_reconcile_duration_seconds_sum{controller="cm-quiet",trigger="change"} 0.03
      controller_reconcile_effect_total{controller="cm-quiet",effect="none",trigger="change"} 3
      """;

  @TempDir Path dir;

  @Test
  void echoesThatChangedNothingSayTheControllerCouldSkipUpdatesOfItsOwnResourceVersion() {
    ResyncReport.Controller settle = controller(report(null, SETTLES), "cm-settle");
    assertThat(settle.echoes()).isEqualTo(new ResyncReport.Echoes(6, 0.12, 12.0, new ResyncReport.Effects(2, 4, 0), 0));
    assertThat(settle.echoVerdict()).isEqualTo(ResyncReport.EchoVerdict.ECHO_WASTE);
    assertThat(settle.echoVerdictText())
        .isEqualTo(
            "its own writes echoed back as 6 reconciles that changed nothing: it could skip updates whose resourceVersion it wrote itself,"
                + " and save 0.12 s and 12 API requests");
  }

  @Test
  void echoesThatChangedSomethingAgainAreALoop() {
    ResyncReport.Controller loop = controller(report(null, LOOPS), "cm-loop");
    assertThat(loop.echoes()).isEqualTo(new ResyncReport.Echoes(40, 2, 80.0, new ResyncReport.Effects(0, 2, 38), 38));
    assertThat(loop.echoVerdict()).isEqualTo(ResyncReport.EchoVerdict.ECHO_LOOP);
    assertThat(loop.echoVerdictText())
        .isEqualTo("a loop: 38 reconciles on its own writes changed something again: look at which fields it writes on every reconcile");
  }

  /** An echo's resource version did change (by the controller's write): it is not a no-op trigger, and no no-op verdict takes it in. */
  @Test
  void ownWriteIsATriggerOfItsOwnAndNotANoOp() {
    ResyncReport report = report(null, SETTLES + LOOPS);
    ResyncReport.Controller loop = controller(report, "cm-loop");
    assertThat(loop.byTrigger()).isEqualTo(Map.of("change", new ResyncReport.TriggerCost(2, 0.1), "own_write", new ResyncReport.TriggerCost(40, 2)));
    assertThat(loop.noopReconciles()).isZero();
    assertThat(loop.noopEffects()).isEqualTo(ResyncReport.Effects.ZERO);
    assertThat(loop.apiRequests()).isEqualTo(new ResyncReport.ApiRequests(84, 0, Map.of(), 0));
    assertThat(loop.noopVerdict()).isEqualTo(ResyncReport.EffectVerdict.NO_NOOP_RECONCILES);
    assertThat(ResyncReport.isNoop("own_write")).isFalse();
    // the queue's own_write adds name a queue, not a controller: no controller without a name appears
    assertThat(report.controllers()).extracting(ResyncReport.Controller::controller).containsExactly("cm-loop", "cm-settle");
    assertThat(report.handlers()).singleElement().satisfies(h -> {
      assertThat(h.updates()).isEqualTo(12);
      assertThat(h.ownWriteUpdates()).isEqualTo(6);
      assertThat(h.noopUpdates()).isZero();
    });
  }

  @Test
  void theTableShowsTheEchoesAndTheirVerdictAndNothingForAControllerWithoutOwnWriteSeries() {
    assertThat(TableFormat.render(report(null, SETTLES + LOOPS + QUIET), "echoes.prom"))
        .isEqualTo(
            """
            resync cost of echoes.prom, since the agent started

            Handlers
              ConfigMap cm-settle
                updates 12, no-op 0% [----------], echoes of own writes 6, enqueued 0, dropped 0
                => no no-op updates

            Controllers
              cm-loop
                reconciles 42, 2.1 s; on no-op triggers 0, 0.00 s = 0% [----------]
                api requests 84; on no-op triggers 0 = 0%
                by trigger: change 2 (0.10 s), own_write 40 (2.0 s)
                echoes of its own writes 40, 2.0 s = 95% [##########]; api requests 80
                effect of echoes: changed nothing 2 (none 0, unchanged 2), changed again (loop steps) 38
                => a loop: 38 reconciles on its own writes changed something again: look at which fields it
                  writes on every reconcile
              cm-quiet
                reconciles 3, 0.03 s; on no-op triggers 0, 0.00 s = 0% [----------]
                by trigger: change 3 (0.03 s)
              cm-settle
                reconciles 12, 0.72 s; on no-op triggers 0, 0.00 s = 0% [----------]
                api requests 24; on no-op triggers 0 = 0%
                by trigger: change 6 (0.60 s), own_write 6 (0.12 s)
                echoes of its own writes 6, 0.12 s = 17% [##--------]; api requests 12
                effect of echoes: changed nothing 6 (none 2, unchanged 4), changed again (loop steps) 0
                => its own writes echoed back as 6 reconciles that changed nothing: it could skip updates whose
                  resourceVersion it wrote itself, and save 0.12 s and 12 API requests
              effects count writes to the Kubernetes API only: writes to anything else are not seen
            """);
  }

  @Test
  void theJsonCarriesTheEchoNumbersAndVerdictUnderTheControllerOnlyWhereThereAreOwnWriteSeries() {
    String json = JsonFormat.render(report(null, SETTLES + LOOPS + QUIET), "echoes.prom");
    assertThat(json)
        .contains(
            "\"timer_verdict_text\": \"no periodic reconciles\", \"echoes\": {\"reconciles\": 40, \"seconds\": 2, \"api_requests\": 80, \"loop_steps\": 38},"
                + " \"echo_verdict\": \"echo_loop\", \"echo_verdict_text\": \"a loop: 38 reconciles on its own writes changed something again:"
                + " look at which fields it writes on every reconcile\"}")
        .contains(
            "\"echoes\": {\"reconciles\": 6, \"seconds\": 0.12, \"api_requests\": 12, \"loop_steps\": 0}, \"echo_verdict\": \"echo_waste\","
                + " \"echo_verdict_text\": \"its own writes echoed back as 6 reconciles that changed nothing: it could skip updates whose"
                + " resourceVersion it wrote itself, and save 0.12 s and 12 API requests\"}")
        .contains("\"by_trigger\": {\"change\": {\"reconciles\": 6, \"seconds\": 0.6}, \"own_write\": {\"reconciles\": 6, \"seconds\": 0.12}}")
        .contains("\"resync_period_seconds\": null, \"own_write_updates\": 6, \"verdict\": \"no_noops_seen\"")
        .contains("{\"controller\": \"cm-quiet\", \"reconciles\": 3, ")
        .contains(
            "\"effects\": {\"change\": {\"none\": 3, \"unchanged\": 0, \"changed\": 0}}, \"noop_verdict\": \"no_noop_reconciles\","
                + " \"noop_verdict_text\": \"no reconciles on no-op triggers\", \"timer_verdict\": \"no_timer_reconciles\","
                + " \"timer_verdict_text\": \"no periodic reconciles\"}");
    assertThat(json.split("\"echoes\":", -1)).as("two controllers with echoes, cm-quiet without").hasSize(3);
  }

  @Test
  void markdownHasATableOfTheControllersEchoes() {
    assertThat(MarkdownFormat.render(report(null, SETTLES + LOOPS + QUIET), "echoes.prom"))
        .endsWith(
            """
            **Echoes of their own writes**

            | Controller | Echo reconciles | Their time | Their API requests | Loop steps (changed again) | Verdict |
            |---|---:|---:|---:|---:|---|
            | cm-loop | 40 | 2.0 s (95%) | 80 | 38 | a loop: 38 reconciles on its own writes changed something again: look at which fields it writes on every reconcile |
            | cm-settle | 6 | 0.12 s (17%) | 12 | 0 | its own writes echoed back as 6 reconciles that changed nothing: it could skip updates whose resourceVersion it wrote itself, and save 0.12 s and 12 API requests |

            """);
    assertThat(MarkdownFormat.render(report(null, QUIET), "quiet.prom")).doesNotContain("Echoes").doesNotContain("own writes");
  }

  /** Between two scrapes: 10 more echoes of cm-loop, 9 of them loop steps; cm-settle had none in the window. */
  @Test
  void aWindowCountsTheEchoesBetweenTheScrapesAndAQuietControllerGetsNoEchoLines() {
    String later =
        (SETTLES + LOOPS)
            .replace("trigger=\"own_write\"} 40", "trigger=\"own_write\"} 50")
            .replace("trigger=\"own_write\",verb=\"get\"} 40", "trigger=\"own_write\",verb=\"get\"} 50")
            .replace("trigger=\"own_write\",verb=\"update\"} 40", "trigger=\"own_write\",verb=\"update\"} 50")
            .replace("controller=\"cm-loop\",trigger=\"own_write\"} 2\n", "controller=\"cm-loop\",trigger=\"own_write\"} 2.5\n")
            .replace("effect=\"changed\",trigger=\"own_write\"} 38", "effect=\"changed\",trigger=\"own_write\"} 47")
            .replace("controller=\"cm-loop\",effect=\"unchanged\",trigger=\"own_write\"} 2", "controller=\"cm-loop\",effect=\"unchanged\",trigger=\"own_write\"} 3");
    ResyncReport report = report(SETTLES + LOOPS, later);
    ResyncReport.Controller loop = controller(report, "cm-loop");
    assertThat(loop.echoes()).isEqualTo(new ResyncReport.Echoes(10, 0.5, 20.0, new ResyncReport.Effects(0, 1, 9), 9));
    assertThat(loop.echoVerdictText())
        .isEqualTo("a loop: 9 reconciles on its own writes changed something again: look at which fields it writes on every reconcile");
    ResyncReport.Controller settle = controller(report, "cm-settle");
    assertThat(settle.echoes()).isEqualTo(new ResyncReport.Echoes(0, 0, 0.0, ResyncReport.Effects.ZERO, 0));
    assertThat(settle.echoVerdict()).isEqualTo(ResyncReport.EchoVerdict.NO_ECHO_RECONCILES);
    assertThat(settle.echoVerdictText()).isEqualTo("no reconciles on its own writes");
    String table = TableFormat.render(report, "window");
    assertThat(table.substring(table.indexOf("  cm-settle"))).doesNotContain("echoes").doesNotContain("=>");
    assertThat(JsonFormat.render(report, "window"))
        .contains("\"echoes\": {\"reconciles\": 0, \"seconds\": 0, \"api_requests\": 0, \"loop_steps\": 0}, \"echo_verdict\": \"no_echo_reconciles\"");
  }

  /** Echoes whose effect the scrape lacks may be loop steps: no verdict says they settle. */
  @Test
  void echoesWithoutEffectSeriesAreNotMeasured() {
    ResyncReport.Controller settle = controller(report(null, linesWhere(SETTLES, l -> !l.contains("effect_total"))), "cm-settle");
    assertThat(settle.echoVerdict()).isEqualTo(ResyncReport.EchoVerdict.ECHO_NOT_MEASURED);
    assertThat(settle.echoVerdictText())
        .isEqualTo("what the 6 reconciles on its own writes changed is not measured: the scrape has no controller_reconcile_effect_total for them");
    String partly = linesWhere(SETTLES, l -> !l.contains("effect=\"none\""));
    assertThat(controller(report(null, partly), "cm-settle").echoVerdictText())
        .isEqualTo("what 2 of the 6 reconciles on its own writes changed is not measured (no controller_reconcile_effect_total for them); the other 4 changed nothing");
    String table = TableFormat.render(report(null, linesWhere(SETTLES, l -> !l.contains("effect_total"))), "old");
    assertThat(table)
        .contains(
            """
                echoes of its own writes 6, 0.12 s = 17% [##--------]; api requests 12
                => what the 6 reconciles on its own writes changed is not measured: the scrape has no
                  controller_reconcile_effect_total for them
            """)
        .doesNotContain("effect of echoes");
  }

  @Test
  void savedScrapesGiveTheEchoesAndEveryTableLineFits() throws IOException {
    Path file = Files.writeString(dir.resolve("echoes.prom"), INFO + SETTLES + LOOPS + QUIET);
    ReportCommandTest.Run run = ReportCommandTest.run(file.toString());
    assertThat(run.exit()).isZero();
    assertThat(run.out()).isEqualTo(TableFormat.render(report(null, SETTLES + LOOPS + QUIET), file.toString()));
    assertThat(run.out().lines()).as("at most 100 columns").allSatisfy(line -> assertThat(line.length()).isLessThanOrEqualTo(100));
  }
}
