package dev.resyncmeter.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import org.junit.jupiter.api.io.TempDir;
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
  void unusableInputGivesOneLineAndANonZeroExit(@TempDir Path dir) throws IOException {
    assertOneLine(run(scrape("not-prometheus.html")), 1, "not-prometheus.html is not Prometheus text: line 1 is no sample (<html>)");
    assertOneLine(run(scrape("truncated.prom")), 1, "truncated.prom is truncated: its last line has no end");
    assertOneLine(run(scrape("other-exporter.prom")), 1, "holds no resync_meter_info: it is not a resync-meter endpoint");
    Path empty = Files.createFile(dir.resolve("empty.prom"));
    assertOneLine(run(empty.toString()), 1, "is empty");
  }

  /** What went wrong reading a file is said in words, never with a Java class name. */
  @Test
  void aFileThatCannotBeReadGivesTheReasonInWords(@TempDir Path dir) throws IOException {
    assertError(run(scrape("no-such-file.prom")), "cannot read src/test/resources/scrapes/no-such-file.prom: no such file");
    assertError(run(dir.toString()), "cannot read " + dir + ": is a directory");
    Path binary = Files.write(dir.resolve("scrape.prom.gz"), new byte[] {(byte) 0x1f, (byte) 0x8b, 8, 0, (byte) 0xff, (byte) 0xfe, '\n'});
    assertError(run(binary.toString()), "cannot read " + binary + ": not UTF-8 text");
    assertThat(Files.readAllBytes(binary)).as("the saved scrape is left as it was").hasSize(7);
    Path first = Files.copy(SCRAPES.resolve("client-java-first.prom"), dir.resolve("first.prom"));
    assertError(run(first.toString(), dir.resolve("gone.prom").toString()), "cannot read " + dir.resolve("gone.prom") + ": no such file");
  }

  /**
   * A path no one can read, root included (a regular file stands where a folder should be): one line
   * with the reason, no report, and the saved scrapes are left as they were.
   */
  @Test
  void anUnreadablePathGivesTheReasonAndLeavesTheScrapesAsTheyWere(@TempDir Path dir) throws IOException {
    Path first = Files.copy(SCRAPES.resolve("client-java-first.prom"), dir.resolve("first.prom"));
    Path file = Files.copy(SCRAPES.resolve("josdk.prom"), dir.resolve("josdk.prom"));
    Path underAFile = file.resolve("second.prom");
    assertError(run(first.toString(), underAFile.toString()), "cannot read " + underAFile + ": not a directory");
    assertThat(first).as("the readable scrape is left as it was").hasSameBinaryContentAs(SCRAPES.resolve("client-java-first.prom"));
    assertThat(file).as("the file in the way is left as it was").hasSameBinaryContentAs(SCRAPES.resolve("josdk.prom"));
  }

  /** What went wrong scraping is said in words too: refused, no HTTP, an HTTP status, not the metrics. */
  @Test
  void anEndpointThatCannotBeScrapedGivesTheReasonInWords() throws IOException {
    int closed;
    try (ServerSocket socket = new ServerSocket(0)) {
      closed = socket.getLocalPort();
    }
    assertError(run("--url", "http://127.0.0.1:" + closed + "/metrics", "--window", "1ms"), "cannot read http://127.0.0.1:" + closed + "/metrics: connection refused");
    assertError(run("--url", "ftp://example/metrics"), "'ftp://example/metrics' is not an http URL such as http://127.0.0.1:9464/metrics");
    assertError(run("--url", "127.0.0.1:9464/metrics"), "'127.0.0.1:9464/metrics' is not a URL");
    assertError(run("--url", "http://[::1/metrics"), "'http://[::1/metrics' is not a URL");
    assertError(run("--url", "http://127.0.0.1:99999/metrics"), "'http://127.0.0.1:99999/metrics' is not a URL: its port is above 65535");
    com.sun.net.httpserver.HttpServer server = com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", exchange -> {
      byte[] page = "<html><body>a web page</body></html>\n".getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(exchange.getRequestURI().getPath().equals("/page") ? 200 : 404, page.length);
      exchange.getResponseBody().write(page);
      exchange.close();
    });
    server.start();
    try {
      String base = "http://127.0.0.1:" + server.getAddress().getPort();
      assertError(run("--url", base + "/metrics", "--window", "1ms"), base + "/metrics answered HTTP 404 Not Found, not the metrics: " + OtherAnswerTest.NOT_THE_AGENT);
      assertError(run("--url", base + "/page", "--window", "1ms"), base + "/page is not Prometheus text: line 1 is no sample (<html><body>a web page</body></html>)");
    } finally {
      server.stop(0);
    }
  }

  @Test
  void anEndpointThatNeverAnswersGivesOneLineAfterTheTimeout() throws Exception {
    try (java.net.ServerSocket silent = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      String url = "http://127.0.0.1:" + silent.getLocalPort() + "/metrics";
      assertThatThrownBy(() -> ReportCommand.fetch(url, 1)).isInstanceOf(ReportException.class).hasMessage("cannot read " + url + ": no answer within 1 s");
    }
  }

  @Test
  void theReasonsInWords() {
    assertThat(Problems.inWords(new java.nio.file.AccessDeniedException("/data/scrape.prom"))).isEqualTo("permission denied");
    assertThat(Problems.inWords(new java.net.UnknownHostException("metrics.example"))).isEqualTo("no such host");
    assertThat(Problems.inWords(new java.net.NoRouteToHostException("No route to host"))).isEqualTo("no route to host");
    assertThat(Problems.inWords(new IOException("java.lang.IllegalStateException: stream closed"))).isEqualTo("stream closed");
    assertThat(Problems.inWords(new IOException())).isEqualTo("input/output error");
  }

  @Test
  void aBadCommandLineGivesItsProblemAndTheUsageWithExitTwo() {
    for (String[] args : List.of(
        new String[] {"--window", "0s", scrape("josdk.prom"), scrape("josdk.prom")},
        new String[] {"--window", "-5s", scrape("josdk.prom"), scrape("josdk.prom")},
        new String[] {"--window", "soon", scrape("josdk.prom"), scrape("josdk.prom")},
        new String[] {"--format", "yaml", scrape("josdk.prom")},
        new String[] {"--window"},
        new String[] {"--window", "30s", scrape("josdk.prom")},
        new String[] {"--verbose"},
        new String[] {"a", "b", "c"})) {
      Run run = run(args);
      assertThat(run.exit()).as(String.join(" ", args)).isEqualTo(2);
      assertThat(run.out()).isEmpty();
      assertThat(run.err().lines().findFirst().orElseThrow()).startsWith("resync-meter report: ");
      assertThat(run.err()).contains(ReportCommand.USAGE);
    }
    assertThat(run("--window", "0s", scrape("josdk.prom")).err()).startsWith("resync-meter report: --window must be longer than zero, not '0s'");
    assertThat(run("--window", "30s", scrape("josdk.prom")).err())
        .startsWith("resync-meter report: --window needs two saved scrapes or an endpoint; one saved scrape counts since the agent started\n");
  }

  @Test
  void twoSavedScrapesWithTheSameModificationTimeNeedAWindow(@TempDir Path dir) throws IOException {
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

  /** Exit code 1 and exactly this one line on stderr, after the command's name. */
  private static void assertError(Run run, String line) {
    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.out()).isEmpty();
    assertThat(run.err()).isEqualTo("resync-meter report: " + line + "\n");
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
