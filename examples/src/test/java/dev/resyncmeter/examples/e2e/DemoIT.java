package dev.resyncmeter.examples.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo as a user runs it: the report every 10 s, the whole run's report when it stops, and a
 * clean end; its command line answers --help and refuses a bad value in one line. And the
 * repository's {@code ./demo} script that builds and starts it: its help, when it builds, each
 * library's demo through it, and no terminal escape codes in anything it prints.
 */
class DemoIT {

  static final Duration TIMEOUT = Duration.ofSeconds(90);

  /** The repository's root, where {@code ./demo} is: the examples module's parent folder. */
  private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
  private static final Path STAMP = ROOT.resolve("examples/target/demo-build.stamp");
  private static final String BUILDING = "demo: building the agent and the examples (mvn package)...";

  @TempDir Path dir;

  @Test
  void aShortRunEndsWithTheWholeRunsReportWithItsRelistAndLostNotificationsAndNoStackTrace() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    try (AgentProcess demo =
        AgentProcess.start("host=127.0.0.1,port=" + port, Map.of(), "demo", "--metrics-url", "http://127.0.0.1:" + port + "/metrics", "--seconds", "21")) {
      assertThat(demo.waitFor(TIMEOUT)).isZero();
      List<String> out = demo.stdout();
      List<String> headings = out.stream().filter(l -> l.startsWith("resync cost of http://127.0.0.1:" + port + "/metrics")).toList();
      assertThat(headings).hasSize(3);
      // the reports at 10 s and 20 s cover their own 10 s each, the first too
      assertThat(headings.subList(0, 2)).allMatch(l -> l.matches("resync cost of http://127\\.0\\.0\\.1:" + port + "/metrics, over \\d+(\\.\\d)? s"));
      assertThat(out).filteredOn(l -> l.matches("\\[\\d.*")).hasSize(3).allMatch(l -> l.matches("\\[\\d\\d:\\d\\d:\\d\\d\\] .*"));
      int last = -1;
      for (int i = 0; i < out.size(); i++) {
        if (out.get(i).endsWith("] demo: stopping; the whole run")) {
          last = i;
        }
      }
      assertThat(last).as("the whole run's report").isNotNegative();
      List<String> whole = out.subList(last, out.size());
      assertThat(whole).contains("resync cost of http://127.0.0.1:" + port + "/metrics, since the agent started");
      // the demo expires the watches at 20 s: the whole run shows the relist and what it lost
      assertThat(whole).anyMatch(l -> l.matches("  ConfigMap: resync ticks \\d+, relists 1 \\(expired 1\\), relist notifications lost \\d+"));
      // the verdict is wider than the table: it breaks after "saved", before the count of reconciles
      assertThat(whole).anyMatch(l -> l.startsWith("    => enqueues every no-op update: a ResourceVersion check in onUpdate would have saved"));
      assertThat(whole).contains("    => drops every no-op update: it checks already, nothing to save");
      // the echo controllers (issue 44): the report names the stamper a loop, and the settler settles
      assertThat(verdictsOf(whole, "timestamp-stamper")).as("timestamp-stamper's verdicts").anyMatch(l -> l.startsWith("    => a loop: "));
      assertThat(verdictsOf(whole, "label-settler"))
          .as("label-settler's verdicts")
          .anyMatch(l -> l.startsWith("    => its own writes echoed back as "))
          .noneMatch(l -> l.startsWith("    => a loop: "));
      List<String> all = new java.util.ArrayList<>(out);
      all.addAll(demo.stderr());
      assertThat(all).noneMatch(l -> l.contains("Exception") || l.startsWith("\tat ") || l.contains(" ERROR "));
    }
  }

  /** The lines of {@code controller}'s block in the report's Controllers section that hold a verdict ({@code =>}). */
  private static List<String> verdictsOf(List<String> report, String controller) {
    int start = report.indexOf("Controllers");
    assertThat(start).as("the Controllers section").isNotNegative();
    int at = report.subList(start, report.size()).indexOf("  " + controller);
    assertThat(at).as(controller + " in the Controllers section").isNotNegative();
    List<String> verdicts = new ArrayList<>();
    for (String line : report.subList(start + at + 1, report.size())) {
      if (!line.startsWith("    ")) {
        break;
      }
      if (line.startsWith("    => ")) {
        verdicts.add(line);
      }
    }
    return verdicts;
  }

  /** The agent jar's report command against the running demo's endpoint: a window with a resync in it. */
  @Test
  void theReportCommandReadsTheLiveEndpointOverItsWindow() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    String url = "http://127.0.0.1:" + port + "/metrics";
    try (AgentProcess demo = AgentProcess.start("host=127.0.0.1,port=" + port, Map.of(), "demo", "--metrics-url", url, "--seconds", "40")) {
      demo.awaitStdout(l -> l.startsWith("demo: controllers "), TIMEOUT);
      AttachIT.Command json = AttachIT.agentCommand("report", "--url", url, "--window", "6s", "--format", "json");
      assertThat(json.err()).isEmpty();
      assertThat(json.exit()).isZero();
      assertThat(json.out()).containsPattern("\n  \"window_seconds\": 6(\\.\\d+)?,\n");
      // a 5 s resync period: the window holds at least one resync of all eight ConfigMaps
      assertThat(json.out()).containsPattern("\"handler\": \"configmap-every-update\", .*\"verdict\": \"enqueues_noops\"");
      assertThat(json.out()).containsPattern("\"handler\": \"configmap-rv-filter\", .*\"verdict\": \"filters_noops\"");
      AttachIT.Command table = AttachIT.agentCommand("report", "--url", url, "--window", "1s");
      assertThat(table.exit()).isZero();
      // the window is the time between the two scrapes as measured: 1 s, more on a busy machine
      assertThat(table.out()).containsPattern("\\Aresync cost of " + java.util.regex.Pattern.quote(url) + ", over (1\\.\\d|[2-9]\\.\\d) s\n");
      assertThat(table.out().lines()).allSatisfy(l -> assertThat(l.length()).isLessThanOrEqualTo(100));
      // the agent's own answer to another path: the report tells it from another program's
      AttachIT.Command wrongPath = AttachIT.agentCommand("report", "--url", "http://127.0.0.1:" + port + "/metric", "--window", "1ms");
      assertThat(wrongPath.err())
          .isEqualTo("resync-meter report: http://127.0.0.1:" + port + "/metric answered HTTP 404 Not Found, not the metrics: the agent serves its metrics at the path /metrics only\n");
      // --fail-on own-write-loops on a saved scrape of the demo once its stamper has looped: it fails,
      // naming the looping controller and no other (issue 44)
      demo.awaitStdout(l -> l.startsWith("    => a loop: "), TIMEOUT);
      Path saved = Files.writeString(dir.resolve("demo.prom"), dev.resyncmeter.testkit.Scrape.of(url).body());
      AttachIT.Command gate = AttachIT.agentCommand("report", "--fail-on", "own-write-loops", saved.toString());
      assertThat(gate.exit()).as(gate.err()).isEqualTo(1);
      assertThat(gate.err().lines().toList())
          .singleElement()
          .asString()
          .matches("resync-meter report: fail: controller timestamp-stamper loops on its own writes: \\d+ of its \\d+ reconciles? on its own writes changed something again");
    }
  }

  /** The examples jar's own --help: the usage a user needs (the demo, with and without the agent), exit code 0. */
  @Test
  void theExamplesJarsHelpIsForUsersAndExitsZero() throws Exception {
    try (AgentProcess help = AgentProcess.startWithoutAgent("--help")) {
      assertThat(help.waitFor(TIMEOUT)).isZero();
      assertThat(help.stderr()).isEmpty();
      assertThat(help.stdout().get(0)).isEqualTo("usage: java -jar examples/target/resync-meter-examples.jar [demo [OPTIONS]]");
      assertThat(String.join("\n", help.stdout()))
          .contains("  java -javaagent:agent/target/resync-meter-agent.jar -jar examples/target/resync-meter-examples.jar demo")
          .contains("  java -jar agent/target/resync-meter-agent.jar attach resync-meter-examples port=0")
          .doesNotContain("reconcile-scenario")
          .doesNotContain("idle");
    }
    try (AgentProcess unknown = AgentProcess.startWithoutAgent("--colour")) {
      assertThat(unknown.waitFor(TIMEOUT)).isEqualTo(2);
      assertThat(unknown.stdout()).isEmpty();
      assertThat(unknown.stderr().get(0)).isEqualTo("resync-meter-examples: unknown command '--colour'");
      assertThat(unknown.stderr().get(1)).startsWith("usage: java -jar examples/target/resync-meter-examples.jar");
    }
  }

  @Test
  void helpPrintsTheUsageAndABadValueIsOneLine() throws Exception {
    try (AgentProcess demo = AgentProcess.startWithoutAgent("demo", "--help")) {
      assertThat(demo.waitFor(TIMEOUT)).isZero();
      assertThat(demo.stdout()).singleElement().asString().startsWith("usage: demo [--library client-java|fabric8|josdk]");
    }
    for (String[] bad : List.of(new String[] {"--seconds", "soon"}, new String[] {"--seconds", "0"}, new String[] {"--seconds"}, new String[] {"--colour"})) {
      try (AgentProcess demo = AgentProcess.startWithoutAgent(prepend("demo", bad))) {
        assertThat(demo.waitFor(TIMEOUT)).as(String.join(" ", bad)).isEqualTo(2);
        assertThat(demo.stdout()).isEmpty();
        assertThat(demo.stderr()).singleElement().asString().startsWith("demo: ").contains("usage: demo");
      }
    }
    try (AgentProcess demo = AgentProcess.startWithoutAgent("demo", "--kubeconfig", "/nonexistent/kubeconfig")) {
      assertThat(demo.waitFor(TIMEOUT)).isEqualTo(2);
      assertThat(demo.stderr()).containsExactly("demo: cannot read the kubeconfig /nonexistent/kubeconfig: no such file");
    }
  }

  /**
   * Ctrl-C: SIGINT to {@code ./demo} (which is then its java process) after its first 10 s report
   * ends it with the whole run's report, as --seconds does, and exit code 0.
   */
  @Test
  void ctrlCEndsTheScriptsDemoWithTheWholeRunsReport() throws Exception {
    int port = freePort();
    Path out = dir.resolve("ctrl-c.out");
    Path err = dir.resolve("ctrl-c.err");
    Process demo = startScript(asBuilt(), port, out, err);
    try {
      awaitLine(out, demo, l -> l.matches("\\[\\d\\d:\\d\\d:\\d\\d\\] reconciles \\d+ \\(the controllers' own count\\)"), TIMEOUT);
      Assumptions.assumeFalse(ignoresSigint(demo.pid()), "this test runs where SIGINT is ignored (a background job without job control): Ctrl-C cannot reach the demo");
      assertThat(new ProcessBuilder("kill", "-INT", Long.toString(demo.pid())).start().waitFor()).isZero();
      assertThat(demo.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).as("the demo ends after SIGINT").isTrue();
      String transcript = Files.readString(out) + "\n--- stderr\n" + Files.readString(err);
      assertThat(demo.exitValue()).as(transcript).isZero();
      String stdout = Files.readString(out);
      assertThat(stdout).as(transcript).contains("] demo: stopping; the whole run\nresync cost of http://127.0.0.1:" + port + "/metrics, since the agent started\n");
      String whole = stdout.substring(stdout.indexOf("] demo: stopping; the whole run"));
      assertThat(whole).as(transcript).contains("\nHandlers\n  ConfigMap configmap-drift-repair (resync every 5 s)\n").contains("\nControllers\n").contains("\nInformers\n");
      assertThat(stdout + Files.readString(err)).as(transcript).doesNotContain("Exception").doesNotContain("\tat ").doesNotContain(" ERROR ");
    } finally {
      demo.destroyForcibly();
    }
  }

  /**
   * {@code ./demo} where another program has the port: the agent cannot serve, and the demo says so
   * in one line naming RESYNC_METER_PORT, exit code 1, instead of reports that blame a missing agent;
   * the report command against that port says something other than the agent answers there. With
   * RESYNC_METER_PORT=0 the demo reads the port the agent picked.
   */
  @Test
  void aPortAnotherProgramHasStopsTheDemoWithALineNamingResyncMeterPort() throws Exception {
    com.sun.net.httpserver.HttpServer other = com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress(0), 0);
    other.createContext("/", exchange -> {
      byte[] page = "<html><body>Not Found</body></html>\n".getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(404, page.length);
      exchange.getResponseBody().write(page);
      exchange.close();
    });
    other.start();
    try {
      int taken = other.getAddress().getPort();
      Path bin = asBuilt();
      Script demo = script(Duration.ofSeconds(60), bin, taken, "--seconds", "11");
      String transcript = "--- stdout\n" + demo.out() + "\n--- stderr\n" + demo.err();
      assertThat(demo.exit()).as(transcript).isEqualTo(1);
      assertThat(demo.out()).as(transcript).isEmpty();
      assertThat(demo.err().lines())
          .as(transcript)
          .contains("[resync-meter] WARN cannot serve metrics on 0.0.0.0:" + taken + ": the port is in use; counting goes on without an endpoint");
      assertThat(demo.err().lines().filter(l -> !l.startsWith("[resync-meter] ")))
          .as(transcript)
          .containsExactly(
              "demo: the agent runs but cannot serve metrics on 0.0.0.0:" + taken + ": the port is in use (another program has it), so there is"
                  + " nothing to report; choose another port with RESYNC_METER_PORT (RESYNC_METER_PORT=9500 ./demo; 0 picks a free one)");
      AttachIT.Command report = AttachIT.agentCommand("report", "--url", "http://127.0.0.1:" + taken + "/metrics", "--window", "1ms");
      assertThat(report.exit()).isEqualTo(1);
      assertThat(report.err().lines())
          .singleElement()
          .asString()
          .isEqualTo(
              "resync-meter report: http://127.0.0.1:" + taken + "/metrics answered HTTP 404 Not Found, not the metrics: something other than"
                  + " the resync-meter agent answers on that port; the agent's start line names the port it serves (its port= argument or"
                  + " RESYNC_METER_PORT, 9464 by default)");

      Script anyPort = script(Duration.ofSeconds(60), bin, 0, "--library", "fabric8", "--seconds", "1");
      String anyTranscript = "--- stdout\n" + anyPort.out() + "\n--- stderr\n" + anyPort.err();
      assertThat(anyPort.exit()).as(anyTranscript).isZero();
      Matcher served = Pattern.compile("metrics at http://127\\.0\\.0\\.1:(\\d+)/metrics\n").matcher(anyPort.out());
      assertThat(served.find()).as(anyTranscript).isTrue();
      assertThat(Integer.parseInt(served.group(1))).isPositive();
      assertThat(anyPort.out()).as(anyTranscript).contains("] demo: stopping; the whole run\nresync cost of http://127.0.0.1:" + served.group(1) + "/metrics, since the agent started\n");
    } finally {
      other.stop(0);
    }
  }

  /**
   * A real cluster the demo cannot use is one line and a non-zero exit, at once: a kubeconfig whose
   * server does not answer (a closed loopback port), --in-cluster outside a pod, and the options of a
   * real cluster with the fabric8 and JOSDK demos, which run against a mock server.
   */
  @Test
  void aClusterTheDemoCannotUseIsOneLineAndANonZeroExit() throws Exception {
    int closed = freePort();
    Path kubeconfig = dir.resolve("kubeconfig");
    Files.writeString(
        kubeconfig,
        String.join(
            "\n",
            "apiVersion: v1",
            "kind: Config",
            "clusters:",
            "- name: closed",
            "  cluster:",
            "    server: http://127.0.0.1:" + closed,
            "users:",
            "- name: someone",
            "  user:",
            "    token: not-a-token",
            "contexts:",
            "- name: closed",
            "  context:",
            "    cluster: closed",
            "    user: someone",
            "current-context: closed",
            ""));
    long start = System.nanoTime();
    try (AgentProcess demo = AgentProcess.startWithoutAgent("demo", "--kubeconfig", kubeconfig.toString())) {
      assertThat(demo.waitFor(TIMEOUT)).as(demo.transcript()).isEqualTo(1);
      assertThat(demo.stdout()).as(demo.transcript()).isEmpty();
      assertThat(demo.stderr())
          .as(demo.transcript())
          .containsExactly("demo: cannot list the ConfigMaps of the cluster in " + kubeconfig + " (http://127.0.0.1:" + closed + "): connection refused");
    }
    assertThat(Duration.ofNanos(System.nanoTime() - start)).as("at once, not after retries").isLessThan(Duration.ofSeconds(30));

    try (AgentProcess demo = AgentProcess.startWithoutAgent(Map.of("KUBERNETES_SERVICE_HOST", "", "KUBERNETES_SERVICE_PORT", ""), "demo", "--in-cluster")) {
      assertThat(demo.waitFor(TIMEOUT)).as(demo.transcript()).isEqualTo(2);
      assertThat(demo.stdout()).as(demo.transcript()).isEmpty();
      assertThat(demo.stderr())
          .as(demo.transcript())
          .containsExactly(
              "demo: --in-cluster runs in a pod: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set here (outside a cluster, give --kubeconfig FILE)");
    }

    Map<List<String>, String> misuses =
        Map.of(
            List.of("--kubeconfig", kubeconfig.toString(), "--library", "fabric8"),
            "demo: --kubeconfig is for --library client-java: the fabric8 demo runs against fabric8's mock server; usage: demo ",
            List.of("--library", "josdk", "--in-cluster"),
            "demo: --in-cluster is for --library client-java: the josdk demo runs against fabric8's mock server; usage: demo ",
            List.of("--kubeconfig", kubeconfig.toString(), "--in-cluster"),
            "demo: --kubeconfig FILE or --in-cluster, not both; usage: demo ");
    for (Map.Entry<List<String>, String> misuse : misuses.entrySet()) {
      try (AgentProcess demo = AgentProcess.startWithoutAgent(prepend("demo", misuse.getKey().toArray(String[]::new)))) {
        assertThat(demo.waitFor(TIMEOUT)).as(demo.transcript()).isEqualTo(2);
        assertThat(demo.stdout()).as(demo.transcript()).isEmpty();
        assertThat(demo.stderr()).as(demo.transcript()).singleElement().asString().startsWith(misuse.getValue());
      }
    }
  }

  /** {@code ./demo --help}: every option the demo takes, each described, without Maven or Java. */
  @Test
  void theScriptsHelpDescribesEveryOptionOfTheDemoWithoutBuildingOrStartingJava() throws Exception {
    Path stubs = stubs("echo \"$(basename \"$0\") must not run\" >&2; exit 99");
    Script help = script(Duration.ofSeconds(10), stubs, 9464, "--help");
    assertThat(help.err()).isEmpty();
    assertThat(help.exit()).isZero();
    assertThat(help.out()).doesNotContain("\u001b").startsWith("usage: ./demo [--library client-java|fabric8|josdk] ");
    String demoUsage;
    try (AgentProcess demo = AgentProcess.startWithoutAgent("demo", "--help")) {
      assertThat(demo.waitFor(TIMEOUT)).isZero();
      demoUsage = demo.stdout().get(0);
    }
    List<String> options = new ArrayList<>(List.of("--help"));
    for (Matcher option = Pattern.compile("--[a-z-]+").matcher(demoUsage); option.find(); ) {
      options.add(option.group());
    }
    assertThat(options).contains("--library", "--seconds", "--kubeconfig", "--in-cluster", "--metrics-url");
    // each on a line of its own: "  --option [VALUE]  what it does"
    Pattern described = Pattern.compile("  (--[a-z-]+)(,? \\S+)? {2,}\\S.*");
    List<String> documented = help.out().lines().map(described::matcher).filter(Matcher::matches).map(m -> m.group(1)).toList();
    assertThat(documented).containsExactlyInAnyOrderElementsOf(options);
  }

  /**
   * {@code ./demo} runs Maven when there has been no build through it or a source changed since (a
   * file removed counts), and not otherwise; Maven in batch mode, without colours or jansi's resets.
   */
  @Test
  void theScriptBuildsOnlyWhenASourceChangedSinceItsLastBuild() throws Exception {
    Path calls = dir.resolve("calls");
    Path stubs = stubs("echo \"$(basename \"$0\") $* MAVEN_OPTS=${MAVEN_OPTS:-}\" >> '" + calls + "'");
    Files.deleteIfExists(STAMP);
    Script first = script(Duration.ofSeconds(30), stubs, 19464, "--library", "fabric8", "--seconds", "1");
    assertThat(first.exit()).as(first.err()).isZero();
    assertThat(first.err()).isEqualTo(BUILDING + "\n");
    assertThat(Files.readAllLines(calls))
        .containsExactly(
            "mvn --batch-mode --quiet -Dstyle.color=never -DskipTests package --projects agent,examples --also-make MAVEN_OPTS= -Djansi.noreset=true",
            "java -javaagent:" + AgentProcess.agentJar() + "=port=19464 -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -jar "
                + AgentProcess.examplesJar() + " demo --library fabric8 --seconds 1 MAVEN_OPTS=");
    assertThat(STAMP).isRegularFile();

    Files.delete(calls);
    Script again = script(Duration.ofSeconds(30), stubs, 19464);
    assertThat(again.err()).isEmpty();
    assertThat(Files.readAllLines(calls)).singleElement().asString().startsWith("java ");

    // a file added to examples/src and removed again: its folder changed, so a build
    Path probe = ROOT.resolve("examples/src/demo-it-probe");
    Files.writeString(probe, "");
    Files.delete(probe);
    Files.delete(calls);
    Script changed = script(Duration.ofSeconds(30), stubs, 19464);
    assertThat(changed.err()).isEqualTo(BUILDING + "\n");
    assertThat(Files.readAllLines(calls)).hasSize(2).first().asString().startsWith("mvn ");
  }

  /**
   * {@code ./demo --library L} for each library the README names, the first after a real build: each
   * ends with the whole run's report, and nothing any of them prints, Maven included, has an escape code.
   */
  @Test
  void eachLibrarysDemoRunsThroughTheScriptAfterARealBuildWithoutEscapeCodes() throws Exception {
    Files.deleteIfExists(STAMP);
    boolean built = false;
    for (String library : List.of("client-java", "fabric8", "josdk")) {
      int port;
      try (ServerSocket socket = new ServerSocket(0)) {
        port = socket.getLocalPort();
      }
      Script run = script(Duration.ofSeconds(built ? 60 : 300), AgentProcess.javaHome().resolve("bin"), port, "--library", library, "--seconds", "2");
      String transcript = library + "\n--- stdout\n" + run.out() + "\n--- stderr\n" + run.err();
      assertThat(run.exit()).as(transcript).isZero();
      assertThat(run.out() + run.err()).as(transcript).doesNotContain("\u001b");
      assertThat(run.err().lines().filter(BUILDING::equals).count()).as(transcript).isEqualTo(built ? 0 : 1);
      built = true;
      assertThat(run.out()).as(transcript).contains("] demo: stopping; the whole run\nresync cost of http://127.0.0.1:" + port + "/metrics, since the agent started\n");
      assertThat(run.out() + run.err()).as(transcript).doesNotContain("Exception").doesNotContain("\tat ").doesNotContain(" ERROR ");
    }
  }

  /**
   * {@code ./demo --tls}: the agent serves HTTPS with basic auth from a certificate and password the
   * script makes, the banner says how to read it, and the demo's own reports read it that way.
   */
  @Test
  void theTlsOptionServesHttpsWithBasicAuthAndTheReportsReadIt() throws Exception {
    int port = freePort();
    Script run = script(Duration.ofSeconds(90), asBuilt(), port, "--tls", "--library", "fabric8", "--seconds", "2");
    String transcript = "--- stdout\n" + run.out() + "\n--- stderr\n" + run.err();
    assertThat(run.exit()).as(transcript).isZero();
    String url = "https://127.0.0.1:" + port + "/metrics";
    Path tls = ROOT.resolve("examples/target/demo-tls");
    assertThat(run.out())
        .as(transcript)
        .contains("metrics at " + url + " (TLS and basic auth: curl --cacert " + tls.resolve("tls.crt") + " -u demo:$(cat " + tls.resolve("password") + ") " + url + ")")
        .contains("] demo: stopping; the whole run\nresync cost of " + url + ", since the agent started\n");
    assertThat(run.err().lines().filter(l -> l.contains(" WARN ") || l.contains("Exception"))).as(transcript).isEmpty();
    assertThat(run.err()).as(transcript).contains("[resync-meter] INFO resync-meter ").contains(" serving https://0.0.0.0:" + port + "/metrics;");
    assertThat(tls.resolve("tls.key")).content().startsWith("-----BEGIN PRIVATE KEY-----\n");
  }

  record Script(int exit, String out, String err) {}

  /**
   * Runs {@code ./demo} from another folder to its end within {@code timeout}, with {@code first} at
   * the head of its PATH and the agent's port {@code port}; any other RESYNC_METER_ variable removed.
   */
  private Script script(Duration timeout, Path first, int port, String... args) throws IOException, InterruptedException {
    Path out = Files.createTempFile(dir, "demo", ".out");
    Path err = Files.createTempFile(dir, "demo", ".err");
    Process process = startScript(first, port, out, err, args);
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
      throw new AssertionError("./demo " + String.join(" ", args) + " did not end within " + timeout + "\n" + Files.readString(err));
    }
    return new Script(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
  }

  /** Starts {@code ./demo} as {@link #script} runs it, its output going to {@code out} and {@code err}. */
  private Process startScript(Path first, int port, Path out, Path err, String... args) throws IOException {
    List<String> command = new ArrayList<>(List.of("bash", ROOT.resolve("demo").toString()));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile()).redirectOutput(out.toFile()).redirectError(err.toFile());
    Map<String, String> environment = builder.environment();
    environment.keySet().removeIf(k -> k.startsWith("RESYNC_METER_") || k.equals("MAVEN_OPTS"));
    environment.put("RESYNC_METER_PORT", Integer.toString(port));
    environment.put("PATH", first + ":" + System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
    return builder.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
  }

  /**
   * A PATH head for {@code ./demo} on the jars this build made: the tests' JDK's {@code java}, an
   * {@code mvn} that must not run, and the demo's build stamp made now (the jars were built from the
   * sources as they are, as the script's own build would have left them).
   */
  private Path asBuilt() throws IOException {
    Path bin = Files.createDirectories(dir.resolve("as-built"));
    Map<String, String> scripts = Map.of("mvn", "echo 'mvn must not run' >&2; exit 99", "java", "exec '" + AgentProcess.javaHome().resolve("bin/java") + "' \"$@\"");
    for (Map.Entry<String, String> script : scripts.entrySet()) {
      Path file = bin.resolve(script.getKey());
      Files.writeString(file, "#!/bin/sh\n" + script.getValue() + "\n");
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
    AgentProcess.examplesJar();
    Files.writeString(STAMP, "");
    return bin;
  }

  /** The first line of {@code file} that matches, waiting for it at most {@code timeout}. */
  private static String awaitLine(Path file, Process process, Predicate<String> match, Duration timeout) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
        if (match.test(line)) {
          return line;
        }
      }
      if (!process.isAlive() || System.nanoTime() > deadline) {
        throw new AssertionError("no such line in " + file + (process.isAlive() ? " within " + timeout : ", and the process ended") + ":\n" + Files.readString(file));
      }
      Thread.sleep(100);
    }
  }

  /** Whether {@code pid} ignores SIGINT (as processes of a background job of a shell without job control do). */
  private static boolean ignoresSigint(long pid) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith("SigIgn:")) {
        return (Long.parseUnsignedLong(line.substring("SigIgn:".length()).trim(), 16) & 0b10) != 0;
      }
    }
    return false;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  /** A folder with an {@code mvn} and a {@code java} that run {@code body}. */
  private Path stubs(String body) throws IOException {
    Path bin = Files.createDirectories(dir.resolve("bin"));
    for (String name : List.of("mvn", "java")) {
      Path stub = bin.resolve(name);
      Files.writeString(stub, "#!/bin/sh\n" + body + "\n");
      Files.setPosixFilePermissions(stub, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
    return bin;
  }

  private static String[] prepend(String first, String[] rest) {
    String[] all = new String[rest.length + 1];
    all[0] = first;
    System.arraycopy(rest, 0, all, 1, rest.length);
    return all;
  }
}
