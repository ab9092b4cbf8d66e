package dev.resyncmeter.report;

import static dev.resyncmeter.report.Scrapes.INFO;
import static dev.resyncmeter.report.Scrapes.controller;
import static dev.resyncmeter.report.Scrapes.linesWhere;
import static dev.resyncmeter.report.Scrapes.report;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What each reconcile changed ({@code controller_reconcile_effect_total}), by trigger, and the two
 * verdicts it gives: for the no-op triggers together, and for JOSDK's timer ({@code periodic}).
 * Each scrape is written out here, so every number asserted can be checked by hand.
 */
class EffectsTest {

  /**
   * A client-java controller whose 12 reconciles on no-op triggers (10 resync, 2 relist) sent 18
   * requests and changed nothing: 6 sent no write, 6 only updates answered with the old version.
   */
  static final String RECONCILES =
      """
      controller_reconcile_total{controller="cm",result="success",trigger="change"} 5
      controller_reconcile_total{controller="cm",result="success",trigger="resync_noop"} 9
      controller_reconcile_total{controller="cm",result="error",trigger="resync_noop"} 1
      controller_reconcile_total{controller="cm",result="success",trigger="relist_noop"} 2
      controller_reconcile_duration_seconds_sum{controller="cm",trigger="change"} 0.5
      controller_reconcile_duration_seconds_sum{controller="cm",trigger="resync_noop"} 0.25
      controller_reconcile_duration_seconds_sum{controller="cm",trigger="relist_noop"} 0.05
      """;
  static final String API_REQUESTS =
      """
      controller_reconcile_api_requests_total{controller="cm",trigger="change",verb="get"} 5
      controller_reconcile_api_requests_total{controller="cm",trigger="change",verb="update"} 5
      controller_reconcile_api_requests_total{controller="cm",trigger="resync_noop",verb="get"} 10
      controller_reconcile_api_requests_total{controller="cm",trigger="resync_noop",verb="update"} 6
      controller_reconcile_api_requests_total{controller="cm",trigger="relist_noop",verb="get"} 2
      """;
  static final String ALL_WASTE =
      RECONCILES + API_REQUESTS
          + """
          controller_reconcile_effect_total{controller="cm",effect="changed",trigger="change"} 5
          controller_reconcile_effect_total{controller="cm",effect="none",trigger="resync_noop"} 4
          controller_reconcile_effect_total{controller="cm",effect="unchanged",trigger="resync_noop"} 6
          controller_reconcile_effect_total{controller="cm",effect="none",trigger="relist_noop"} 2
          """;

  @Test
  void everyNoOpTriggeredReconcileChangedNothingSoACheckWouldSaveThemAll() {
    ResyncReport.Controller cm = controller(report(null, ALL_WASTE), "cm");
    assertThat(cm.effectsByTrigger())
        .isEqualTo(
            Map.of(
                "change", new ResyncReport.Effects(0, 0, 5),
                "resync_noop", new ResyncReport.Effects(4, 6, 0),
                "relist_noop", new ResyncReport.Effects(2, 0, 0)));
    assertThat(cm.noopEffects()).isEqualTo(new ResyncReport.Effects(6, 6, 0));
    assertThat(cm.noopVerdict()).isEqualTo(ResyncReport.EffectVerdict.NOOP_WASTE);
    assertThat(cm.noopVerdictText())
        .isEqualTo(
            "every reconcile on a no-op trigger changed nothing: a ResourceVersion check would save 12 reconciles, 0.30 s and 18 API requests,"
                + " and lose nothing seen here");
    assertThat(cm.timerVerdict()).isEqualTo(ResyncReport.EffectVerdict.NO_TIMER_RECONCILES);
    assertThat(cm.timerVerdictText()).isEqualTo("no periodic reconciles");
  }

  @Test
  void theTableShowsWhatTheNoOpTriggeredReconcilesChangedAndSaysOnceWhatIsNotSeen() {
    assertThat(TableFormat.render(report(null, ALL_WASTE), "all-waste.prom"))
        .isEqualTo(
            """
            resync cost of all-waste.prom, since the agent started

            Controllers
              cm
                reconciles 17, 0.80 s; on no-op triggers 12, 0.30 s = 38% [####------]
                api requests 28; on no-op triggers 18 = 64% (get 12, update 6)
                by trigger: change 5 (0.50 s), relist_noop 2 (0.05 s), resync_noop 10 (0.25 s)
                effect on no-op triggers: changed nothing 12 (none 6, unchanged 6), changed 0
                => every reconcile on a no-op trigger changed nothing: a ResourceVersion check would save
                  12 reconciles, 0.30 s and 18 API requests, and lose nothing seen here
              effects count writes to the Kubernetes API only: writes to anything else are not seen
            """);
  }

  @Test
  void theJsonGivesTheEffectsOfEveryTriggerAndBothVerdictsAfterTheFieldsItHadBefore() {
    assertThat(JsonFormat.render(report(null, ALL_WASTE), "all-waste.prom"))
        .contains(
            "\"by_trigger\": {\"change\": {\"reconciles\": 5, \"seconds\": 0.5}, \"relist_noop\": {\"reconciles\": 2, \"seconds\": 0.05},"
                + " \"resync_noop\": {\"reconciles\": 10, \"seconds\": 0.25}},"
                + " \"effects\": {\"change\": {\"none\": 0, \"unchanged\": 0, \"changed\": 5}, \"relist_noop\": {\"none\": 2, \"unchanged\": 0, \"changed\": 0},"
                + " \"resync_noop\": {\"none\": 4, \"unchanged\": 6, \"changed\": 0}},"
                + " \"noop_verdict\": \"noop_waste\", \"noop_verdict_text\": \"every reconcile on a no-op trigger changed nothing: a ResourceVersion check"
                + " would save 12 reconciles, 0.30 s and 18 API requests, and lose nothing seen here\","
                + " \"timer_verdict\": \"no_timer_reconciles\", \"timer_verdict_text\": \"no periodic reconciles\"}\n");
  }

  /** The effects of the same reconciles where 3 of the 10 on resync changed something. */
  static final String SOME_REPAIRS =
      """
      controller_reconcile_effect_total{controller="cm",effect="changed",trigger="change"} 5
      controller_reconcile_effect_total{controller="cm",effect="unchanged",trigger="resync_noop"} 7
      controller_reconcile_effect_total{controller="cm",effect="changed",trigger="resync_noop"} 3
      controller_reconcile_effect_total{controller="cm",effect="none",trigger="relist_noop"} 2
      """;

  @Test
  void someNoOpTriggeredReconcilesRepairedStateSoTheResyncIsNotSimplyWaste() {
    ResyncReport report = report(null, RECONCILES + API_REQUESTS + SOME_REPAIRS);
    ResyncReport.Controller cm = controller(report, "cm");
    assertThat(cm.noopEffects()).isEqualTo(new ResyncReport.Effects(2, 7, 3));
    assertThat(cm.noopVerdict()).isEqualTo(ResyncReport.EffectVerdict.NOOP_REPAIRS);
    assertThat(cm.noopVerdictText())
        .isEqualTo("resync repaired state 3 times in 12 no-op-triggered reconciles: look at why the watch did not carry those changes before removing it");
    assertThat(TableFormat.render(report, "some-repairs.prom"))
        .contains(
            """
                effect on no-op triggers: changed nothing 9 (none 2, unchanged 7), changed 3
                => resync repaired state 3 times in 12 no-op-triggered reconciles: look at why the watch did not
                  carry those changes before removing it
            """);
    assertThat(JsonFormat.render(report, "some-repairs.prom")).contains("\"noop_verdict\": \"noop_repairs\"");
  }

  /** Two operators: one whose timer only ever found nothing to do, one whose timer repaired state twice. */
  static final String TWO_OPERATORS =
      """
      controller_reconcile_total{controller="idle-timer",result="success",trigger="change"} 12
      controller_reconcile_total{controller="idle-timer",result="success",trigger="periodic"} 46
      controller_reconcile_duration_seconds_sum{controller="idle-timer",trigger="change"} 0.1
      controller_reconcile_duration_seconds_sum{controller="idle-timer",trigger="periodic"} 0.27
      controller_reconcile_api_requests_total{controller="idle-timer",trigger="change",verb="patch"} 12
      controller_reconcile_api_requests_total{controller="idle-timer",trigger="periodic",verb="patch"} 46
      controller_reconcile_effect_total{controller="idle-timer",effect="changed",trigger="change"} 12
      controller_reconcile_effect_total{controller="idle-timer",effect="unchanged",trigger="periodic"} 46
      controller_reconcile_total{controller="repairing-timer",result="success",trigger="periodic"} 19
      controller_reconcile_total{controller="repairing-timer",result="error",trigger="periodic"} 1
      controller_reconcile_duration_seconds_sum{controller="repairing-timer",trigger="periodic"} 1.5
      controller_reconcile_api_requests_total{controller="repairing-timer",trigger="periodic",verb="get"} 20
      controller_reconcile_api_requests_total{controller="repairing-timer",trigger="periodic",verb="patch"} 2
      controller_reconcile_effect_total{controller="repairing-timer",effect="none",trigger="periodic"} 18
      controller_reconcile_effect_total{controller="repairing-timer",effect="changed",trigger="periodic"} 2
      """;

  @Test
  void aTimerThatChangedNothingCouldFireLessOftenAndOneThatRepairedStateIsKept() {
    ResyncReport report = report(null, TWO_OPERATORS);
    ResyncReport.Controller idle = controller(report, "idle-timer");
    assertThat(idle.periodicEffects()).isEqualTo(new ResyncReport.Effects(0, 46, 0));
    assertThat(idle.timerVerdict()).isEqualTo(ResyncReport.EffectVerdict.TIMER_WASTE);
    assertThat(idle.timerVerdictText())
        .isEqualTo(
            "every periodic reconcile changed nothing: a longer maxReconciliationInterval would save 46 reconciles, 0.27 s and 46 API requests,"
                + " and lose nothing seen here");
    assertThat(idle.noopVerdict()).isEqualTo(ResyncReport.EffectVerdict.NO_NOOP_RECONCILES);
    ResyncReport.Controller repairing = controller(report, "repairing-timer");
    assertThat(repairing.periodicEffects()).isEqualTo(new ResyncReport.Effects(18, 0, 2));
    assertThat(repairing.timerVerdict()).isEqualTo(ResyncReport.EffectVerdict.TIMER_REPAIRS);
    assertThat(repairing.timerVerdictText()).isEqualTo("the timer repaired state 2 times in 20 periodic reconciles: keep it");

    String table = TableFormat.render(report, "operators.prom");
    assertThat(table)
        .contains(
            """
                effect of periodic: changed nothing 46 (none 0, unchanged 46), changed 0
                => every periodic reconcile changed nothing: a longer maxReconciliationInterval would save
                  46 reconciles, 0.27 s and 46 API requests, and lose nothing seen here
              repairing-timer
            """)
        .contains(
            """
                effect of periodic: changed nothing 18 (none 18, unchanged 0), changed 2
                => the timer repaired state 2 times in 20 periodic reconciles: keep it
              effects count writes to the Kubernetes API only: writes to anything else are not seen
            """);
    assertThat(table.split(TableFormat.EFFECTS_SEEN, -1)).as("said once").hasSize(2);
    assertThat(table).doesNotContain("on no-op triggers: changed");
    assertThat(JsonFormat.render(report, "operators.prom"))
        .contains("\"effects\": {\"change\": {\"none\": 0, \"unchanged\": 0, \"changed\": 12}, \"periodic\": {\"none\": 0, \"unchanged\": 46, \"changed\": 0}},"
            + " \"noop_verdict\": \"no_noop_reconciles\", \"noop_verdict_text\": \"no reconciles on no-op triggers\", \"timer_verdict\": \"timer_waste\",")
        .contains("\"effects\": {\"periodic\": {\"none\": 18, \"unchanged\": 0, \"changed\": 2}}, \"noop_verdict\": \"no_noop_reconciles\","
            + " \"noop_verdict_text\": \"no reconciles on no-op triggers\", \"timer_verdict\": \"timer_repairs\","
            + " \"timer_verdict_text\": \"the timer repaired state 2 times in 20 periodic reconciles: keep it\"}");
  }

  /** An agent that does not count effects: no verdict pretends to know, and the table stays as it was. */
  @Test
  void aScrapeWithoutEffectSeriesSaysTheyAreNotMeasured() {
    ResyncReport oldAgent = report(null, RECONCILES + API_REQUESTS);
    ResyncReport.Controller cm = controller(oldAgent, "cm");
    assertThat(cm.effectsByTrigger()).isEmpty();
    assertThat(cm.noopVerdict()).isEqualTo(ResyncReport.EffectVerdict.NOOP_NOT_MEASURED);
    assertThat(cm.noopVerdictText())
        .isEqualTo("what the 12 reconciles on no-op triggers changed is not measured: the scrape has no controller_reconcile_effect_total for them (an older agent)");
    ResyncReport.Controller timer = controller(report(null, linesWhere(TWO_OPERATORS, l -> !l.contains("effect_total"))), "idle-timer");
    assertThat(timer.timerVerdict()).isEqualTo(ResyncReport.EffectVerdict.TIMER_NOT_MEASURED);
    assertThat(timer.timerVerdictText())
        .isEqualTo("what the 46 periodic reconciles changed is not measured: the scrape has no controller_reconcile_effect_total for them (an older agent)");

    String table = TableFormat.render(oldAgent, "old-agent.prom");
    assertThat(table).doesNotContain("effect").doesNotContain("=>");
    assertThat(table).endsWith("    by trigger: change 5 (0.50 s), relist_noop 2 (0.05 s), resync_noop 10 (0.25 s)\n");
    assertThat(JsonFormat.render(oldAgent, "old-agent.prom")).contains("\"effects\": {}, \"noop_verdict\": \"noop_not_measured\",");
  }

  /** A reconcile whose effect the scrape does not hold may have repaired something: no waste verdict over it. */
  @Test
  void noOpTriggeredReconcilesOnlyPartlyMeasuredGetNoWasteVerdict() {
    String relistNotMeasured = RECONCILES + API_REQUESTS + linesWhere(ALL_WASTE, l -> l.contains("effect_total") && !l.contains("relist_noop"));
    ResyncReport.Controller cm = controller(report(null, relistNotMeasured), "cm");
    assertThat(cm.effectsByTrigger()).containsOnlyKeys("change", "resync_noop");
    assertThat(cm.noopVerdict()).isEqualTo(ResyncReport.EffectVerdict.NOOP_NOT_MEASURED);
    assertThat(cm.noopVerdictText())
        .isEqualTo("what 2 of the 12 reconciles on no-op triggers changed is not measured (no controller_reconcile_effect_total for them); the other 10 changed nothing");
  }

  /** Without API request series the waste verdict says what it can: reconciles and seconds. */
  @Test
  void aWasteVerdictWithoutApiRequestSeriesNamesReconcilesAndSeconds() {
    String withoutApiRequests = linesWhere(ALL_WASTE, l -> !l.contains("api_requests"));
    assertThat(controller(report(null, withoutApiRequests), "cm").noopVerdictText())
        .isEqualTo("every reconcile on a no-op trigger changed nothing: a ResourceVersion check would save 12 reconciles and 0.30 s, and lose nothing seen here");
  }

  /** Between two scrapes, only what happened between them: here 15 more resync reconciles, 3 of them repairs. */
  @Test
  void aWindowCountsTheEffectsBetweenTheTwoScrapes() {
    String earlier =
        """
        controller_reconcile_total{controller="cm",result="success",trigger="resync_noop"} 10
        controller_reconcile_duration_seconds_sum{controller="cm",trigger="resync_noop"} 0.2
        controller_reconcile_api_requests_total{controller="cm",trigger="resync_noop",verb="get"} 10
        controller_reconcile_effect_total{controller="cm",effect="none",trigger="resync_noop"} 4
        controller_reconcile_effect_total{controller="cm",effect="unchanged",trigger="resync_noop"} 6
        """;
    String later =
        """
        controller_reconcile_total{controller="cm",result="success",trigger="resync_noop"} 25
        controller_reconcile_total{controller="cm",result="success",trigger="relist_noop"} 2
        controller_reconcile_duration_seconds_sum{controller="cm",trigger="resync_noop"} 0.5
        controller_reconcile_duration_seconds_sum{controller="cm",trigger="relist_noop"} 0.04
        controller_reconcile_api_requests_total{controller="cm",trigger="resync_noop",verb="get"} 25
        controller_reconcile_api_requests_total{controller="cm",trigger="resync_noop",verb="patch"} 15
        controller_reconcile_api_requests_total{controller="cm",trigger="relist_noop",verb="get"} 2
        controller_reconcile_effect_total{controller="cm",effect="none",trigger="resync_noop"} 4
        controller_reconcile_effect_total{controller="cm",effect="unchanged",trigger="resync_noop"} 18
        controller_reconcile_effect_total{controller="cm",effect="changed",trigger="resync_noop"} 3
        controller_reconcile_effect_total{controller="cm",effect="none",trigger="relist_noop"} 2
        """;
    ResyncReport.Controller cm = controller(report(earlier, later), "cm");
    assertThat(cm.noopReconciles()).isEqualTo(17);
    // a series only in the later scrape (relist_noop) counts from zero
    assertThat(cm.effectsByTrigger()).isEqualTo(Map.of("resync_noop", new ResyncReport.Effects(0, 12, 3), "relist_noop", new ResyncReport.Effects(2, 0, 0)));
    assertThat(cm.noopVerdictText())
        .isEqualTo("resync repaired state 3 times in 17 no-op-triggered reconciles: look at why the watch did not carry those changes before removing it");

    // no reconcile between two equal scrapes: the triggers keep their (zero) effects, and there is nothing to judge
    ResyncReport.Controller quiet = controller(report(later, later), "cm");
    assertThat(quiet.effectsByTrigger()).isEqualTo(Map.of("resync_noop", new ResyncReport.Effects(0, 0, 0), "relist_noop", new ResyncReport.Effects(0, 0, 0)));
    assertThat(quiet.noopVerdict()).isEqualTo(ResyncReport.EffectVerdict.NO_NOOP_RECONCILES);
  }

  /** The controller restarted between the scrapes: every series is lower, and counts from zero. */
  @Test
  void anEffectCounterLowerInTheLaterScrapeWasResetAndCountsFromZero() {
    String beforeRestart =
        """
        controller_reconcile_total{controller="cm",result="success",trigger="resync_noop"} 31
        controller_reconcile_duration_seconds_sum{controller="cm",trigger="resync_noop"} 0.9
        controller_reconcile_api_requests_total{controller="cm",trigger="resync_noop",verb="get"} 31
        controller_reconcile_effect_total{controller="cm",effect="none",trigger="resync_noop"} 10
        controller_reconcile_effect_total{controller="cm",effect="unchanged",trigger="resync_noop"} 18
        controller_reconcile_effect_total{controller="cm",effect="changed",trigger="resync_noop"} 3
        """;
    String afterRestart =
        """
        controller_reconcile_total{controller="cm",result="success",trigger="resync_noop"} 8
        controller_reconcile_duration_seconds_sum{controller="cm",trigger="resync_noop"} 0.16
        controller_reconcile_api_requests_total{controller="cm",trigger="resync_noop",verb="get"} 8
        controller_reconcile_effect_total{controller="cm",effect="none",trigger="resync_noop"} 6
        controller_reconcile_effect_total{controller="cm",effect="unchanged",trigger="resync_noop"} 2
        """;
    ResyncReport.Controller cm = controller(report(beforeRestart, afterRestart), "cm");
    assertThat(cm.effectsByTrigger()).isEqualTo(Map.of("resync_noop", new ResyncReport.Effects(6, 2, 0)));
    assertThat(cm.noopVerdict()).isEqualTo(ResyncReport.EffectVerdict.NOOP_WASTE);
    assertThat(cm.noopVerdictText())
        .isEqualTo("every reconcile on a no-op trigger changed nothing: a ResourceVersion check would save 8 reconciles, 0.16 s and 8 API requests, and lose nothing seen here");
    assertThat(cm).isEqualTo(controller(report(null, afterRestart), "cm"));
  }

  /**
   * Scraped from an endpoint right after an attach, and again later: the work queued before the
   * attach counts as {@code unknown}, its effects are shown, and neither verdict takes them in.
   */
  @Test
  void fromAnEndpointAfterAnAttachTheUnknownTriggerKeepsItsEffectsOutOfTheVerdicts() throws IOException {
    String atAttach =
        """
        controller_reconcile_total{controller="cm",result="success",trigger="unknown"} 1
        controller_reconcile_duration_seconds_sum{controller="cm",trigger="unknown"} 0.01
        controller_reconcile_api_requests_total{controller="cm",trigger="unknown",verb="update"} 1
        controller_reconcile_effect_total{controller="cm",effect="changed",trigger="unknown"} 1
        """;
    String later =
        """
        controller_reconcile_total{controller="cm",result="success",trigger="unknown"} 3
        controller_reconcile_total{controller="cm",result="success",trigger="resync_noop"} 4
        controller_reconcile_duration_seconds_sum{controller="cm",trigger="unknown"} 0.03
        controller_reconcile_duration_seconds_sum{controller="cm",trigger="resync_noop"} 0.08
        controller_reconcile_api_requests_total{controller="cm",trigger="unknown",verb="update"} 3
        controller_reconcile_api_requests_total{controller="cm",trigger="resync_noop",verb="get"} 4
        controller_reconcile_effect_total{controller="cm",effect="changed",trigger="unknown"} 3
        controller_reconcile_effect_total{controller="cm",effect="none",trigger="resync_noop"} 4
        """;
    try (FakeEndpoint endpoint = new FakeEndpoint(List.of(INFO + atAttach, INFO + later))) {
      String url = endpoint.url();
      ReportCommandTest.Run json = ReportCommandTest.run("--url", url, "--window", "1ms", "--format", "json");
      assertThat(json.err()).isEmpty();
      assertThat(json.out())
          .contains(
              "\"effects\": {\"resync_noop\": {\"none\": 4, \"unchanged\": 0, \"changed\": 0}, \"unknown\": {\"none\": 0, \"unchanged\": 0, \"changed\": 2}},"
                  + " \"noop_verdict\": \"noop_waste\", \"noop_verdict_text\": \"every reconcile on a no-op trigger changed nothing:"
                  + " a ResourceVersion check would save 4 reconciles, 0.08 s and 4 API requests, and lose nothing seen here\","
                  + " \"timer_verdict\": \"no_timer_reconciles\"");
      ReportCommandTest.Run table = ReportCommandTest.run("--url", url, "--window", "1ms");
      assertThat(table.out())
          .contains(
              """
                  effect on no-op triggers: changed nothing 4 (none 4, unchanged 0), changed 0
                  => every reconcile on a no-op trigger changed nothing: a ResourceVersion check would save
                    4 reconciles, 0.08 s and 4 API requests, and lose nothing seen here
              """)
          .doesNotContain("effect of");
    }
  }

  @Test
  void savedScrapesGiveTheSameEffectsAndEveryTableLineFits(@TempDir Path dir) throws IOException {
    for (String series : List.of(ALL_WASTE, TWO_OPERATORS)) {
      Path file = Files.writeString(dir.resolve("scrape.prom"), INFO + series);
      ReportCommandTest.Run run = ReportCommandTest.run(file.toString());
      assertThat(run.exit()).isZero();
      assertThat(run.out()).contains(TableFormat.EFFECTS_SEEN);
      assertThat(run.out().lines()).as("at most 100 columns").allSatisfy(line -> assertThat(line.length()).isLessThanOrEqualTo(100));
    }
  }

  /** An effect the report does not know would be counted nowhere: refused, with its line. */
  @Test
  void anEffectOtherThanNoneUnchangedOrChangedIsRefused(@TempDir Path dir) throws IOException {
    Path unknownEffect = Files.writeString(dir.resolve("a.prom"), INFO + "controller_reconcile_effect_total{controller=\"cm\",effect=\"skipped\",trigger=\"change\"} 1\n");
    ReportCommandTest.Run run = ReportCommandTest.run(unknownEffect.toString());
    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.out()).isEmpty();
    assertThat(run.err()).isEqualTo("resync-meter report: " + unknownEffect + " line 2: controller_reconcile_effect_total has effect 'skipped', not none, unchanged or changed\n");
    Path noEffect = Files.writeString(dir.resolve("b.prom"), INFO + "controller_reconcile_effect_total{controller=\"cm\",trigger=\"change\"} 1\n");
    assertThat(ReportCommandTest.run(noEffect.toString()).err())
        .isEqualTo("resync-meter report: " + noEffect + " line 2: controller_reconcile_effect_total has no effect label\n");
  }
}
