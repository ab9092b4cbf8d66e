package dev.resyncmeter.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The report of saved scrapes, taken from the three demos with the agent, against golden output
 * ({@code -Dresyncmeter.regenerate=true} rewrites the golden files; read the diff before committing
 * it), and one clear line with a non-zero exit for every input it cannot use.
 */
class ReportCommandTest {

  static final Path SCRAPES = Path.of("src/test/resources/scrapes");
  static final Path GOLDEN = Path.of("src/test/resources/golden");

  record Run(int exit, String out, String err) {}

  static Run run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit = ReportCommand.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  static String scrape(String name) {
    return SCRAPES.resolve(name).toString();
  }

  /** Each case: its golden file's name, the window, the earlier scrape (or none) and the later one. */
  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "client-java-window, 12s, client-java-first.prom, client-java-second.prom",
    "client-java-since-start, , , client-java-second.prom",
    "no-traffic, 10s, client-java-first.prom, client-java-first.prom",
    "counter-reset, 12s, client-java-second.prom, client-java-first.prom",
    "handler-only-in-second, 12s, client-java-first-without-rv-filter.prom, client-java-second.prom",
    "fabric8, , , fabric8.prom",
    "josdk, , , josdk.prom",
  })
  void savedScrapesGiveTheGoldenReportAsTableAndAsJson(String name, String window, String earlier, String later) throws IOException {
    for (String format : List.of("table", "json")) {
      List<String> args = new ArrayList<>(List.of("--format", format));
      if (window != null) {
        args.addAll(List.of("--window", window));
      }
      if (earlier != null) {
        args.add(scrape(earlier));
      }
      args.add(scrape(later));
      Run run = run(args.toArray(String[]::new));
      assertThat(run.err()).isEmpty();
      assertThat(run.exit()).isZero();
      Path golden = GOLDEN.resolve(name + (format.equals("json") ? ".json" : ".txt"));
      if (Boolean.getBoolean("resyncmeter.regenerate")) {
        Files.writeString(golden, run.out());
      }
      assertThat(run.out()).as(golden.toString()).isEqualTo(Files.readString(golden));
      if (format.equals("table")) {
        assertThat(run.out().lines()).as("at most 100 columns").allSatisfy(line -> assertThat(line.length()).isLessThanOrEqualTo(100));
      }
    }
  }

  @Test
  void theWindowReportCountsOnlyWhatHappenedBetweenTheScrapes() {
    ResyncReport report = report("client-java-first.prom", "client-java-second.prom", 12.0);
    ResyncReport.Handler every = report.handlers().stream().filter(h -> h.handler().equals("configmap-every-update")).findFirst().orElseThrow();
    // the demo's every-update controller reconciles what its handler enqueued: the two agree
    ResyncReport.Controller controller = report.controllers().stream().filter(c -> c.controller().equals("configmap-every-update")).findFirst().orElseThrow();
    assertThat(every.verdict()).isEqualTo(ResyncReport.Verdict.ENQUEUES_NOOPS);
    assertThat(every.noopUpdates()).isEqualTo(every.enqueued() + every.dropped() + every.unknown());
    assertThat(controller.reconciles()).isEqualTo(controller.byTrigger().values().stream().mapToDouble(ResyncReport.TriggerCost::reconciles).sum());
    assertThat(controller.noopReconciles()).isEqualTo(controller.byTrigger().get("resync_noop").reconciles());
  }

  @Test
  void aCounterLowerInTheLaterScrapeWasResetAndCountsFromZero() {
    ResyncReport since = report(null, "client-java-first.prom", null);
    ResyncReport reset = report("client-java-second.prom", "client-java-first.prom", 12.0);
    assertThat(reset.handlers()).isEqualTo(since.handlers());
    assertThat(reset.controllers()).isEqualTo(since.controllers());
  }

  @Test
  void aHandlerOnlyInTheLaterScrapeCountsEverythingItHasSinceItsStart() {
    ResyncReport report = report("client-java-first-without-rv-filter.prom", "client-java-second.prom", 12.0);
    ResyncReport since = report(null, "client-java-second.prom", null);
    assertThat(report.handlers().stream().filter(h -> h.handler().equals("configmap-rv-filter")).findFirst().orElseThrow())
        .isEqualTo(since.handlers().stream().filter(h -> h.handler().equals("configmap-rv-filter")).findFirst().orElseThrow());
  }

  @Test
  void theApiRequestsOnNoOpTriggersAreCountedByVerbAndThePeriodicOnesBesideThem() {
    ResyncReport window = report("client-java-first.prom", "client-java-second.prom", 12.0);
    // each sample reconcile gets its ConfigMap and updates it: the 16 on resync no-ops sent 32 of the 40 requests
    assertThat(controller(window, "configmap-every-update").apiRequests()).isEqualTo(new ResyncReport.ApiRequests(40, 32, Map.of("get", 16.0, "update", 16.0), 0));
    assertThat(controller(window, "configmap-rv-filter").apiRequests()).isEqualTo(new ResyncReport.ApiRequests(8, 0, Map.of(), 0));
    // the operator's timer is not a no-op trigger
    assertThat(controller(report(null, "josdk.prom", null), "configmap-operator").apiRequests()).isEqualTo(new ResyncReport.ApiRequests(58, 0, Map.of(), 46));
  }

  /** A scrape of an agent that does not count API requests gives the report it always gave. */
  @Test
  void aControllerWithoutApiRequestSeriesGetsNoApiRequestLineOrFields() throws Exception {
    String withoutApiRequests =
        Files.readString(SCRAPES.resolve("josdk.prom")).lines().filter(l -> !l.contains("controller_reconcile_api_requests_total")).map(l -> l + "\n").collect(Collectors.joining());
    ResyncReport report = ResyncReport.of(null, Scrape.parse(withoutApiRequests, "josdk.prom"), null);
    assertThat(controller(report, "configmap-operator").apiRequests()).isNull();
    assertThat(TableFormat.render(report, scrape("josdk.prom")))
        .isEqualTo(Files.readString(GOLDEN.resolve("josdk.txt")).replace("    api requests 58; on no-op triggers 0 = 0%; periodic 46 = 79%\n", ""));
    assertThat(JsonFormat.render(report, scrape("josdk.prom"))).doesNotContain("api_requests");
  }

  @Test
  void unusableInputGivesOneLineAndANonZeroExit() throws IOException {
    assertOneLine(run(scrape("not-prometheus.html")), 1, "not-prometheus.html is not Prometheus text: line 1 is no sample (<html>)");
    assertOneLine(run(scrape("truncated.prom")), 1, "truncated.prom is truncated: its last line has no end");
    assertOneLine(run(scrape("other-exporter.prom")), 1, "holds no resync_meter_info: it is not a resync-meter endpoint");
    assertOneLine(run(scrape("no-such-file.prom")), 1, "cannot read src/test/resources/scrapes/no-such-file.prom");
    Path empty = Files.createTempFile("resync-meter-empty", ".prom");
    assertOneLine(run(empty.toString()), 1, "is empty");
    int closed;
    try (ServerSocket socket = new ServerSocket(0)) {
      closed = socket.getLocalPort();
    }
    assertOneLine(run("--url", "http://127.0.0.1:" + closed + "/metrics", "--window", "1ms"), 1, "cannot read http://127.0.0.1:" + closed + "/metrics: java.net.ConnectException");
    assertOneLine(run("--url", "ftp://example/metrics"), 1, "'ftp://example/metrics' is not an http URL");
  }

  @Test
  void aBadCommandLineGivesItsProblemAndTheUsageWithExitTwo() {
    for (String[] args : List.of(
        new String[] {"--window", "0s", scrape("josdk.prom")},
        new String[] {"--window", "-5s", scrape("josdk.prom")},
        new String[] {"--window", "soon", scrape("josdk.prom")},
        new String[] {"--format", "yaml", scrape("josdk.prom")},
        new String[] {"--window"},
        new String[] {"--verbose"},
        new String[] {"a", "b", "c"})) {
      Run run = run(args);
      assertThat(run.exit()).as(String.join(" ", args)).isEqualTo(2);
      assertThat(run.out()).isEmpty();
      assertThat(run.err().lines().findFirst().orElseThrow()).startsWith("resync-meter report: ");
      assertThat(run.err()).contains(ReportCommand.USAGE);
    }
    assertThat(run("--window", "0s", scrape("josdk.prom")).err()).startsWith("resync-meter report: --window must be longer than zero, not '0s'");
  }

  @Test
  void twoSavedScrapesWithTheSameModificationTimeNeedAWindow() throws IOException {
    Path dir = Files.createTempDirectory("resync-meter-scrapes");
    Path first = Files.copy(SCRAPES.resolve("client-java-first.prom"), dir.resolve("a.prom"));
    Path second = Files.copy(SCRAPES.resolve("client-java-second.prom"), dir.resolve("b.prom"));
    Files.setLastModifiedTime(second, Files.getLastModifiedTime(first));
    assertOneLine(run(first.toString(), second.toString()), 1, "is not newer than");
    Files.setLastModifiedTime(second, java.nio.file.attribute.FileTime.fromMillis(Files.getLastModifiedTime(first).toMillis() + 12_000));
    Run run = run("--format", "json", first.toString(), second.toString());
    assertThat(run.exit()).isZero();
    assertThat(run.out()).contains("\"window_seconds\": 12,");
  }

  @Test
  void helpPrintsTheUsage() {
    Run run = run("--help");
    assertThat(run.exit()).isZero();
    assertThat(run.out()).isEqualTo(ReportCommand.USAGE + "\n");
  }

  private static void assertOneLine(Run run, int exit, String contains) {
    assertThat(run.exit()).isEqualTo(exit);
    assertThat(run.out()).isEmpty();
    assertThat(run.err().lines()).singleElement().asString().startsWith("resync-meter report: ").contains(contains);
  }

  private static ResyncReport.Controller controller(ResyncReport report, String name) {
    return report.controllers().stream().filter(c -> c.controller().equals(name)).findFirst().orElseThrow();
  }

  private static ResyncReport report(String earlier, String later, Double window) {
    try {
      Scrape first = earlier == null ? null : Scrape.parse(Files.readString(SCRAPES.resolve(earlier)), earlier);
      return ResyncReport.of(first, Scrape.parse(Files.readString(SCRAPES.resolve(later)), later), window);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
