package dev.resyncmeter.report;

import static dev.resyncmeter.report.Scrapes.INFO;
import static dev.resyncmeter.report.Scrapes.linesWhere;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code report --fail-on}: the report as always on stdout, then one line on stderr and exit code 1
 * for each handler or controller that fails a condition. Each scrape is written out here, so every
 * count in a line can be checked by hand.
 */
class FailOnTest {

  /** A handler that enqueues every no-op update, as a handler without a ResourceVersion check does. */
  static final String NAIVE_HANDLER =
      """
      informer_updates_total{handler="configmap-every-update",kind="ConfigMap"} 30
      informer_noop_updates_total{cause="resync",handler="configmap-every-update",kind="ConfigMap",outcome="enqueued"} 20
      informer_noop_updates_total{cause="relist",handler="configmap-every-update",kind="ConfigMap",outcome="enqueued"} 3
      """;

  /** A handler that checks the ResourceVersion and drops every no-op update. */
  static final String FILTERING_HANDLER =
      """
      informer_updates_total{handler="configmap-rv-filter",kind="ConfigMap"} 30
      informer_noop_updates_total{cause="resync",handler="configmap-rv-filter",kind="ConfigMap",outcome="dropped"} 23
      """;

  /** A controller with 16 of its 20 reconciles on no-op triggers: 80%. */
  static final String EIGHTY_PERCENT_NOOP =
      """
      controller_reconcile_total{controller="cm",result="success",trigger="change"} 4
      controller_reconcile_total{controller="cm",result="success",trigger="resync_noop"} 15
      controller_reconcile_total{controller="cm",result="error",trigger="relist_noop"} 1
      """;

  @TempDir Path dir;

  @Test
  void aHandlerThatEnqueuesNoOpUpdatesFailsAfterTheReportAndAFilteringOnePasses() throws IOException {
    String naive = file("naive.prom", INFO + NAIVE_HANDLER);
    ReportCommandTest.Run failed = ReportCommandTest.run("--fail-on", "enqueues-noops", naive);
    assertFails(failed, "resync-meter report: fail: handler ConfigMap configmap-every-update enqueues no-op updates (23 of 23)\n");
    assertThat(failed.out()).isEqualTo(ReportCommandTest.run(naive).out()).contains("enqueues every no-op update");

    String filtering = file("filtering.prom", INFO + FILTERING_HANDLER);
    ReportCommandTest.Run passed = ReportCommandTest.run("--fail-on", "enqueues-noops", filtering);
    assertThat(passed.err()).isEmpty();
    assertThat(passed.exit()).isZero();
    assertThat(passed.out()).isEqualTo(ReportCommandTest.run(filtering).out()).contains("drops every no-op update");

    // side by side, only the naive one is named
    ReportCommandTest.Run both = ReportCommandTest.run("--fail-on", "enqueues-noops", file("both.prom", INFO + NAIVE_HANDLER + FILTERING_HANDLER));
    assertFails(both, "resync-meter report: fail: handler ConfigMap configmap-every-update enqueues no-op updates (23 of 23)\n");
  }

  /** The condition is the table's verdict enqueues_noops: one no-op update enqueued in the window is enough. */
  @Test
  void aHandlerThatEnqueuesSomeNoOpUpdatesFailsAndOneThatEnqueuedNoneInTheWindowPasses() throws IOException {
    String some = INFO
        + """
        informer_updates_total{handler="mostly-filtering",kind="Secret"} 30
        informer_noop_updates_total{cause="resync",handler="mostly-filtering",kind="Secret",outcome="dropped"} 22
        informer_noop_updates_total{cause="watch",handler="mostly-filtering",kind="Secret",outcome="enqueued"} 1
        """;
    ReportCommandTest.Run run = ReportCommandTest.run("--fail-on", "enqueues-noops", file("some.prom", some));
    assertFails(run, "resync-meter report: fail: handler Secret mostly-filtering enqueues no-op updates (1 of 23)\n");

    // the same counts in both scrapes: nothing enqueued in the window between them
    String earlier = file("earlier.prom", INFO + NAIVE_HANDLER);
    ReportCommandTest.Run quiet = ReportCommandTest.run("--fail-on", "enqueues-noops", "--window", "10s", earlier, file("same.prom", INFO + NAIVE_HANDLER));
    assertThat(quiet.err()).isEmpty();
    assertThat(quiet.exit()).isZero();
    ReportCommandTest.Run busy =
        ReportCommandTest.run("--fail-on", "enqueues-noops", "--window", "10s", earlier, file("later.prom", INFO + NAIVE_HANDLER.replace("} 20\n", "} 22\n")));
    assertFails(busy, "resync-meter report: fail: handler ConfigMap configmap-every-update enqueues no-op updates (2 of 2)\n");
  }

  /** fabric8 handlers with their own queue: whether they enqueue is not seen, so the gate cannot pass them. */
  @Test
  void aHandlerWhoseQueueIsNotSeenCannotBeChecked() {
    ReportCommandTest.Run run = ReportCommandTest.run("--fail-on", "enqueues-noops", ReportCommandTest.scrape("fabric8.prom"));
    assertFails(
        run,
        """
        resync-meter report: fail: cannot check enqueues-noops for handler ConfigMap Fabric8Sample$EveryUpdateHandler: it hands its 8 no-op updates to no queue the agent sees
        resync-meter report: fail: cannot check enqueues-noops for handler ConfigMap Fabric8Sample$VersionCheckingHandler: it hands its 8 no-op updates to no queue the agent sees
        """);
  }

  @Test
  void noopShareFailsOnlyAboveItsThreshold() throws IOException {
    String scrape = file("eighty.prom", INFO + EIGHTY_PERCENT_NOOP);
    // 80% against a threshold at, above and below it
    assertPasses(ReportCommandTest.run("--fail-on", "noop-share>80", scrape));
    assertPasses(ReportCommandTest.run("--fail-on", "noop-share>80.5", scrape));
    ReportCommandTest.Run above = ReportCommandTest.run("--fail-on", "noop-share>79.5", scrape);
    assertFails(above, "resync-meter report: fail: controller cm reconciled on no-op triggers 16 of 20 times (80%), above 79.5%\n");
    ReportCommandTest.Run withPercentSign = ReportCommandTest.run("--fail-on", "noop-share>50%", scrape);
    assertThat(withPercentSign.err()).isEqualTo("resync-meter report: fail: controller cm reconciled on no-op triggers 16 of 20 times (80%), above 50%\n");
    assertThat(above.out()).isEqualTo(ReportCommandTest.run(scrape).out());
  }

  /** A share just above the threshold is shown with the decimals that make it read as above. */
  @Test
  void aShareJustAboveTheThresholdIsShownAboveIt() throws IOException {
    String oneOfThree =
        INFO
            + """
            controller_reconcile_total{controller="cm",result="success",trigger="change"} 2
            controller_reconcile_total{controller="cm",result="success",trigger="resync_noop"} 1
            """;
    ReportCommandTest.Run run = ReportCommandTest.run("--fail-on", "noop-share>33.3", file("third.prom", oneOfThree));
    assertThat(run.err()).isEqualTo("resync-meter report: fail: controller cm reconciled on no-op triggers 1 of 3 times (33.33%), above 33.3%\n");
    assertThat(Gate.percentAbove(16, 20, 79.99)).isEqualTo("80%");
    assertThat(Gate.percentAbove(501, 1000, 50)).isEqualTo("50.1%");
  }

  /** Waste: reconciles on no-op triggers that changed nothing, in percent of all the controller's reconciles (12 of 17 here). */
  @Test
  void noopWasteCountsTheNoOpTriggeredReconcilesThatChangedNothingAgainstAllReconciles() throws IOException {
    String allWaste = file("all-waste.prom", INFO + EffectsTest.ALL_WASTE);
    ReportCommandTest.Run run = ReportCommandTest.run("--fail-on", "noop-waste>70", allWaste);
    assertFails(run, "resync-meter report: fail: controller cm reconciled on no-op triggers and changed nothing 12 of 17 times (71%), above 70%\n");
    assertPasses(ReportCommandTest.run("--fail-on", "noop-waste>71", allWaste));
  }

  /** Of the 12 no-op-triggered reconciles 3 changed something: only the other 9 are waste, 53% of 17. */
  @Test
  void noOpTriggeredReconcilesThatRepairedStateAreNotWaste() throws IOException {
    String someRepairs = file("some-repairs.prom", INFO + EffectsTest.RECONCILES + EffectsTest.SOME_REPAIRS);
    ReportCommandTest.Run run = ReportCommandTest.run("--fail-on", "noop-waste>50", someRepairs);
    assertFails(run, "resync-meter report: fail: controller cm reconciled on no-op triggers and changed nothing 9 of 17 times (53%), above 50%\n");
    // the no-op share is 12 of 17 (71%): above 60, while the waste is not
    assertPasses(ReportCommandTest.run("--fail-on", "noop-waste>60", someRepairs));
    assertThat(ReportCommandTest.run("--fail-on", "noop-share>60", someRepairs).exit()).isEqualTo(1);
  }

  /** Without effect series nothing says the reconciles changed nothing: the gate says it cannot check, and fails. */
  @Test
  void noopWasteWithoutEffectSeriesCannotBeCheckedAndFails() throws IOException {
    String notMeasured = file("not-measured.prom", INFO + EffectsTest.RECONCILES + EffectsTest.API_REQUESTS);
    for (String threshold : List.of("0", "50", "100")) {
      ReportCommandTest.Run run = ReportCommandTest.run("--fail-on", "noop-waste>" + threshold, notMeasured);
      assertFails(
          run,
          "resync-meter report: fail: cannot check noop-waste>" + threshold + " for controller cm: what its 12 reconciles on no-op triggers changed"
              + " is not measured, the scrape has no controller_reconcile_effect_total for them (an older agent)\n");
      assertThat(run.out()).isEqualTo(ReportCommandTest.run(notMeasured).out());
    }
    // a controller without reconciles on no-op triggers wastes none, effects or not
    assertPasses(ReportCommandTest.run("--fail-on", "noop-waste>0", file("change-only.prom",
        INFO + "controller_reconcile_total{controller=\"cm\",result=\"success\",trigger=\"change\"} 5\n")));
  }

  /** 10 of the 12 have effects, all nothing: 10 of 17 (59%) is waste already; whether it is above 60 depends on the other 2. */
  @Test
  void noopWasteWithSomeEffectsMissingFailsOnTheMeasuredWasteOrCannotBeChecked() throws IOException {
    String partly = file(
        "partly.prom",
        INFO + EffectsTest.RECONCILES
            + """
            controller_reconcile_effect_total{controller="cm",effect="none",trigger="resync_noop"} 4
            controller_reconcile_effect_total{controller="cm",effect="unchanged",trigger="resync_noop"} 6
            """);
    assertThat(ReportCommandTest.run("--fail-on", "noop-waste>50", partly).err())
        .isEqualTo("resync-meter report: fail: controller cm reconciled on no-op triggers and changed nothing 10 of 17 times (59%), above 50%\n");
    ReportCommandTest.Run unknown = ReportCommandTest.run("--fail-on", "noop-waste>60", partly);
    assertFails(
        unknown,
        "resync-meter report: fail: cannot check noop-waste>60 for controller cm: what 2 of its 12 reconciles on no-op triggers changed"
            + " is not measured, the scrape has no controller_reconcile_effect_total for them\n");
  }

  /** A loop step is a reconcile on the controller's own write that changed something again: one is enough to fail, naming the controller. */
  @Test
  void ownWriteLoopsFailsOnAControllerWithLoopStepsAndPassesOneThatSettles() throws IOException {
    String both = file("echoes.prom", INFO + EchoesTest.SETTLES + EchoesTest.LOOPS + EchoesTest.QUIET);
    ReportCommandTest.Run run = ReportCommandTest.run("--fail-on", "own-write-loops", both);
    assertFails(run, "resync-meter report: fail: controller cm-loop loops on its own writes: 38 of its 40 reconciles on its own writes changed something again\n");
    assertThat(run.out()).isEqualTo(ReportCommandTest.run(both).out());

    // echoes that changed nothing, and a controller without echoes, pass
    assertPasses(ReportCommandTest.run("--fail-on", "own-write-loops", file("settles.prom", INFO + EchoesTest.SETTLES + EchoesTest.QUIET)));

    // two looping controllers: each its line
    String twoLoops = file("two-loops.prom", INFO + EchoesTest.LOOPS + EchoesTest.LOOPS.replace("cm-loop", "secret-loop").replace("} 38\n", "} 1\n"));
    assertThat(ReportCommandTest.run("--fail-on", "own-write-loops", twoLoops).err())
        .isEqualTo(
            """
            resync-meter report: fail: controller cm-loop loops on its own writes: 38 of its 40 reconciles on its own writes changed something again
            resync-meter report: fail: controller secret-loop loops on its own writes: 1 of its 40 reconciles on its own writes changed something again
            """);
  }

  /** Between two scrapes: a controller that looped before the window but settled in it passes; one loop step in the window fails. */
  @Test
  void ownWriteLoopsJudgesTheWindow() throws IOException {
    String earlier = file("earlier.prom", INFO + EchoesTest.LOOPS);
    String settled = file("settled.prom", INFO + EchoesTest.LOOPS
        .replace("result=\"success\",trigger=\"own_write\"} 40", "result=\"success\",trigger=\"own_write\"} 41")
        .replace("effect=\"unchanged\",trigger=\"own_write\"} 2", "effect=\"unchanged\",trigger=\"own_write\"} 3"));
    assertPasses(ReportCommandTest.run("--fail-on", "own-write-loops", "--window", "10s", earlier, settled));
    String again = file("again.prom", INFO + EchoesTest.LOOPS.replace("result=\"success\",trigger=\"own_write\"} 40", "result=\"success\",trigger=\"own_write\"} 41")
        .replace("effect=\"changed\",trigger=\"own_write\"} 38", "effect=\"changed\",trigger=\"own_write\"} 39"));
    ReportCommandTest.Run run = ReportCommandTest.run("--fail-on", "own-write-loops", "--window", "10s", earlier, again);
    assertFails(run, "resync-meter report: fail: controller cm-loop loops on its own writes: 1 of its 1 reconcile on its own writes changed something again\n");
  }

  /** Echoes whose effect is not counted may be loop steps: the gate cannot pass them; no controller at all, neither. */
  @Test
  void ownWriteLoopsCannotBeCheckedWithoutTheEchoesEffectsOrWithoutControllers() throws IOException {
    String notMeasured = file("not-measured.prom", INFO + linesWhere(EchoesTest.SETTLES, l -> !l.contains("effect_total")));
    ReportCommandTest.Run run = ReportCommandTest.run("--fail-on", "own-write-loops", notMeasured);
    assertFails(
        run,
        "resync-meter report: fail: cannot check own-write-loops for controller cm-settle: what its 6 reconciles on its own writes changed"
            + " is not measured, the scrape has no controller_reconcile_effect_total for them\n");
    String partly = file("partly.prom", INFO + linesWhere(EchoesTest.SETTLES, l -> !l.contains("effect=\"none\"")));
    assertThat(ReportCommandTest.run("--fail-on", "own-write-loops", partly).err())
        .isEqualTo(
            "resync-meter report: fail: cannot check own-write-loops for controller cm-settle: what 2 of its 6 reconciles on its own writes changed"
                + " is not measured, the scrape has no controller_reconcile_effect_total for them\n");
    ReportCommandTest.Run empty = ReportCommandTest.run("--fail-on", "own-write-loops", file("empty.prom", INFO));
    assertFails(empty, "resync-meter report: fail: cannot check own-write-loops: the report has no controller (the agent counted no reconcile)\n");
  }

  @Test
  void repeatedConditionsEachGiveTheirLinesInTheirOrder() throws IOException {
    String scrape = file("handler-and-controller.prom", INFO + NAIVE_HANDLER + EIGHTY_PERCENT_NOOP);
    ReportCommandTest.Run run = ReportCommandTest.run("--fail-on", "noop-share>50", "--fail-on", "enqueues-noops", "--fail-on", "noop-share>50", scrape);
    assertFails(
        run,
        """
        resync-meter report: fail: controller cm reconciled on no-op triggers 16 of 20 times (80%), above 50%
        resync-meter report: fail: handler ConfigMap configmap-every-update enqueues no-op updates (23 of 23)
        """);
    // one condition failing is enough, the other passing says nothing
    ReportCommandTest.Run one = ReportCommandTest.run("--fail-on", "noop-share>90", "--fail-on", "enqueues-noops", scrape);
    assertThat(one.exit()).isEqualTo(1);
    assertThat(one.err().lines()).singleElement().asString().contains("enqueues no-op updates");
    assertPasses(ReportCommandTest.run("--fail-on", "noop-share>90", "--fail-on", "noop-share>85", scrape));
  }

  /** An agent that counted nothing gives a report with no handler and no controller: the gate cannot pass it. */
  @Test
  void aReportWithNothingMeasuredFailsEveryCondition() throws IOException {
    String empty = file("empty.prom", INFO);
    ReportCommandTest.Run run = ReportCommandTest.run("--fail-on", "enqueues-noops", "--fail-on", "noop-share>10", "--fail-on", "noop-waste>10", empty);
    assertFails(
        run,
        """
        resync-meter report: fail: cannot check enqueues-noops: the report has no handler (the agent counted no informer's handlers)
        resync-meter report: fail: cannot check noop-share>10: the report has no controller (the agent counted no reconcile)
        resync-meter report: fail: cannot check noop-waste>10: the report has no controller (the agent counted no reconcile)
        """);
    assertThat(run.out()).contains("no handler and no controller counted yet");
    // handlers without controllers (fabric8 handlers with their own queue): no controller to judge
    ReportCommandTest.Run handlersOnly = ReportCommandTest.run("--fail-on", "noop-share>10", file("handlers-only.prom", INFO + FILTERING_HANDLER));
    assertFails(handlersOnly, "resync-meter report: fail: cannot check noop-share>10: the report has no controller (the agent counted no reconcile)\n");
  }

  /** stdout and stderr into one stream, as in a CI log: the whole report, then the failure lines. */
  @ParameterizedTest
  @ValueSource(strings = {"table", "json"})
  void theReportIsPrintedWholeBeforeTheFailureLines(String format) throws IOException {
    String scrape = file("handler-and-controller.prom", INFO + NAIVE_HANDLER + EIGHTY_PERCENT_NOOP);
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    PrintStream stream = new PrintStream(log, false, StandardCharsets.UTF_8);
    int exit = ReportCommand.run(new String[] {"--format", format, "--fail-on", "enqueues-noops", "--fail-on", "noop-share>50", scrape}, stream, stream);
    stream.flush();
    assertThat(exit).isEqualTo(1);
    String report = ReportCommandTest.run("--format", format, scrape).out();
    assertThat(report).startsWith(format.equals("json") ? "{" : "resync cost of ");
    assertThat(log.toString(StandardCharsets.UTF_8))
        .isEqualTo(
            report
                + """
                resync-meter report: fail: handler ConfigMap configmap-every-update enqueues no-op updates (23 of 23)
                resync-meter report: fail: controller cm reconciled on no-op triggers 16 of 20 times (80%), above 50%
                """);
  }

  /** The gate judges the report, whatever it was read from: here an endpoint scraped twice, a window apart. */
  @Test
  void theGateJudgesAnEndpointsWindowToo() throws IOException {
    // 20 no-op updates enqueued before the window, 23 after it: 3 in the window
    try (FakeEndpoint endpoint = new FakeEndpoint(List.of(INFO + NAIVE_HANDLER.replace("} 3\n", "} 0\n"), INFO + NAIVE_HANDLER))) {
      String url = endpoint.url();
      ReportCommandTest.Run run = ReportCommandTest.run("--url", url, "--window", "1ms", "--fail-on", "enqueues-noops");
      assertFails(run, "resync-meter report: fail: handler ConfigMap configmap-every-update enqueues no-op updates (3 of 3)\n");
      assertThat(run.out()).startsWith("resync cost of " + url + ", over ");
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "noop-noise", "noop-share", "noop-share>", "noop-share>abc", "noop-share>101", "noop-share>-5", "noop-share>NaN", "noop-waste>1e2",
        "noop-share<20", "noop-share>=20", "enqueues-noops>5", "own-write-loops>0", "own-write-loop", ""
      })
  void aBadConditionIsAUsageErrorWithExitTwo(String condition) throws IOException {
    ReportCommandTest.Run run = ReportCommandTest.run("--fail-on", condition, file("naive.prom", INFO + NAIVE_HANDLER));
    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.out()).isEmpty();
    assertThat(run.err().lines().findFirst().orElseThrow()).startsWith("resync-meter report: --fail-on ").endsWith("not '" + condition + "'");
    assertThat(run.err()).isEqualTo(run.err().lines().findFirst().orElseThrow() + "\n" + ReportCommand.USAGE + "\n").doesNotContain("Exception");
  }

  @Test
  void theUsageErrorsSayWhatIsWrong() {
    assertThat(ReportCommandTest.run("--fail-on").err()).startsWith("resync-meter report: --fail-on needs a value\n");
    assertThat(ReportCommandTest.run("--fail-on").exit()).isEqualTo(2);
    // 'noop-share>20' unquoted: the shell redirected stdout to a file named 20 and passed noop-share
    assertThat(ReportCommandTest.run("--fail-on", "noop-share").err())
        .startsWith("resync-meter report: --fail-on takes 'noop-share>PCT' (quoted: the shell reads > as a redirection), not 'noop-share'\n");
    assertThat(ReportCommandTest.run("--fail-on", "noop-waste>120").err())
        .startsWith("resync-meter report: --fail-on noop-waste>PCT takes a percentage from 0 to 100, not 'noop-waste>120'\n");
    assertThat(ReportCommandTest.run("--fail-on", "enqueues").err())
        .startsWith("resync-meter report: --fail-on takes enqueues-noops, own-write-loops, 'noop-share>PCT' or 'noop-waste>PCT', not 'enqueues'\n");
  }

  @Test
  void withoutFailOnTheExitCodeStaysZeroWhateverTheReportSays() throws IOException {
    assertPasses(ReportCommandTest.run(file("naive.prom", INFO + NAIVE_HANDLER + EIGHTY_PERCENT_NOOP)));
  }

  /** The gate failed: exit code 1, and exactly {@code lines} on stderr. */
  private static void assertFails(ReportCommandTest.Run run, String lines) {
    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.err()).isEqualTo(lines);
  }

  private static void assertPasses(ReportCommandTest.Run run) {
    assertThat(run.err()).isEmpty();
    assertThat(run.exit()).isZero();
    assertThat(run.out()).startsWith("resync cost of ");
  }

  private String file(String name, String text) throws IOException {
    return Files.writeString(dir.resolve(name), text).toString();
  }
}
