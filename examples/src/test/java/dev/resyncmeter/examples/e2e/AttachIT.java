package dev.resyncmeter.examples.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resyncmeter.testkit.Scrape;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code java -jar resync-meter-agent.jar attach|list} against forked JVMs started without the agent:
 * the agent loads once and serves, says once what of the work in flight it cannot count, a second attach
 * is refused, and a missing, ambiguous or closed target fails with one line and exit code 1.
 */
class AttachIT {

  static final Duration TIMEOUT = Duration.ofSeconds(60);

  record Command(int exit, String out, String err) {}

  static Command agentCommand(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(AgentProcess.javaHome().resolve("bin/java").toString(), "-jar", AgentProcess.agentJar().toString()));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).start();
    process.getOutputStream().close();
    byte[] out = process.getInputStream().readAllBytes();
    byte[] err = process.getErrorStream().readAllBytes();
    assertThat(process.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).as(String.join(" ", command)).isTrue();
    return new Command(process.exitValue(), new String(out, StandardCharsets.UTF_8), new String(err, StandardCharsets.UTF_8));
  }

  @Test
  void attachLoadsTheAgentOnceListShowsItAndASecondAttachIsRefused() throws Exception {
    try (AgentProcess host = AgentProcess.startWithoutAgent("idle")) {
      host.awaitStdout(l -> l.equals("host ran"), TIMEOUT);
      String pid = Long.toString(host.pid());
      assertThat(agentCommand("list").out().lines()).anyMatch(l -> l.startsWith(pid + " ") && l.contains(" no ") && l.endsWith("resync-meter-examples.jar"));

      Command attach = agentCommand("attach", pid, "host=127.0.0.1,port=0");
      assertThat(attach.err()).isEmpty();
      assertThat(attach.exit()).isZero();
      assertThat(attach.out()).startsWith("resync-meter attached to " + pid + " (");
      int port = servedPort(attach);

      Scrape scrape = Scrape.of("http://127.0.0.1:" + port + "/metrics");
      assertThat(scrape.series().keySet()).anyMatch(s -> s.startsWith("resync_meter_info{"));
      host.awaitStderr(l -> l.startsWith("[resync-meter] INFO attached to a running JVM"), TIMEOUT);
      assertThat(host.agentLines()).hasSize(2);
      assertThat(host.agentLines().get(0)).startsWith("[resync-meter] INFO resync-meter ").contains("serving http://127.0.0.1:" + port + "/metrics");
      assertThat(host.agentLines().get(1))
          .isEqualTo("[resync-meter] INFO attached to a running JVM: counting starts now; work queued before is counted as trigger=\"unknown\","
              + " reconciles running now are not counted");

      Command again = agentCommand("attach", pid);
      assertThat(again.exit()).isEqualTo(1);
      assertThat(again.err().lines()).singleElement().asString()
          .startsWith("resync-meter attach: " + pid + " (").contains("already runs resync-meter").endsWith("not attaching a second one");
      assertThat(agentCommand("list").out().lines()).anyMatch(l -> l.startsWith(pid + " ") && l.contains("serving http://127.0.0.1:" + port + "/metrics"));
      assertThat(host.agentLines()).as("no second agent started").hasSize(2);
      AgentProcess.end(host);
    }
  }

  /**
   * Two controllers built and idle before the attach: everything after it (resyncs, changes, a relist,
   * requeues, failures) is counted exactly, by handler, controller, trigger and result, with the
   * names a -javaagent start gives them, and so are the API requests their reconcilers send, by
   * trigger and verb (the first reconcile of each worker, whose take was not seen, included).
   */
  @Test
  void everyCountOfWorkThatStartedAfterTheAttachEqualsTheControllersOwn() throws Exception {
    try (AgentProcess host = AgentProcess.startWithoutAgent("reconcile-scenario", "attach")) {
      Scrape scrape = attachAndRun(host);
      Map<String, Long> truth = host.truth();
      // the reconcilers' reads and writes, by the trigger of their reconcile, counted by the reconcilers
      assertThat(truth)
          .containsKeys(
              "controller_reconcile_api_requests_total{controller=\"phased-every-update\",trigger=\"resync_noop\",verb=\"get\"}",
              "controller_reconcile_api_requests_total{controller=\"phased-every-update\",trigger=\"relist_noop\",verb=\"get\"}",
              "controller_reconcile_api_requests_total{controller=\"phased-rv-filter\",trigger=\"change\",verb=\"update\"}",
              "controller_reconcile_api_requests_total{controller=\"phased-rv-filter\",trigger=\"requeue\",verb=\"get\"}");
      ExactCounts.assertReconcileScenario(truth, scrape);
      // 3 resyncs and a relist of 5 objects: the enqueuing handler's no-ops, and the filtering one's
      assertThat(scrape.value("informer_noop_updates_total{cause=\"resync\",handler=\"phased-every-update\",kind=\"ConfigMap\",outcome=\"enqueued\"}")).isEqualTo(15);
      assertThat(scrape.value("informer_noop_updates_total{cause=\"relist\",handler=\"phased-every-update\",kind=\"ConfigMap\",outcome=\"enqueued\"}")).isEqualTo(5);
      assertThat(scrape.value("informer_noop_updates_total{cause=\"resync\",handler=\"phased-rv-filter\",kind=\"ConfigMap\",outcome=\"dropped\"}")).isEqualTo(15);
      assertThat(scrape.series()).as("nothing was in flight at the attach").noneSatisfy((series, value) -> assertThat(series.contains("trigger=\"unknown\"") && value != 0).isTrue());
      assertThat(scrape.series().keySet()).as("faults the agent caught in itself").noneMatch(s -> s.startsWith("resync_meter_errors_total"));
      AgentProcess.end(host);
    }
  }

  /**
   * A JOSDK operator on fabric8, started and idle before the attach: the reconciles of the changes
   * after it, and the API requests they send by trigger and verb, equal what the operator and its
   * client's interceptor counted from the attach on, and so do the client's requests by response.
   */
  @Test
  void aJosdkOperatorsReconcilesAndTheirApiRequestsAfterTheAttachEqualTheOperatorsOwnCounts() throws Exception {
    try (AgentProcess host = AgentProcess.startWithoutAgent("josdk-scenario", "attach")) {
      Scrape scrape = attachAndRun(host);
      Map<String, Long> truth = new LinkedHashMap<>(host.truth());
      assertThat(truth.remove("reconciles_of{configmap-operator}")).isEqualTo(4L);
      assertThat(truth)
          .containsEntry("controller_reconcile_total{controller=\"configmap-operator\",result=\"success\",trigger=\"change\"}", 4L)
          // each change's reconcile patched the operator's copy of what it saw
          .containsEntry("controller_reconcile_effect_total{controller=\"configmap-operator\",effect=\"changed\",trigger=\"change\"}", 4L)
          .containsKeys(
              "controller_reconcile_api_requests_total{controller=\"configmap-operator\",trigger=\"change\",verb=\"get\"}",
              "controller_reconcile_api_requests_total{controller=\"configmap-operator\",trigger=\"change\",verb=\"patch\"}");
      ExactCounts.assertExported(truth, scrape);
      List<String> families = new ArrayList<>(ExactCounts.API_REQUEST_FAMILIES);
      families.addAll(List.of("controller_reconcile_total", "controller_reconcile_duration_seconds_count", ExactCounts.EFFECTS));
      ExactCounts.assertNothingElse(truth, scrape, families);
      ExactCounts.assertEffectsAddUpToReconciles(scrape);
      assertThat(scrape.series().keySet()).as("faults the agent caught in itself").noneMatch(s -> s.startsWith("resync_meter_errors_total"));
      AgentProcess.end(host);
    }
  }

  /**
   * A bad agent argument is refused with the line -javaagent gives for it, exit code 2 and nothing
   * loaded; a port taken in the target is told by the command, exit code 1, and the agent stays out:
   * after either, the corrected attach works.
   */
  @Test
  void aBadArgumentOrATakenPortLeavesTheTargetAsItWasAndTheCorrectedAttachWorks() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        AgentProcess host = AgentProcess.startWithoutAgent("idle")) {
      host.awaitStdout(l -> l.equals("host ran"), TIMEOUT);
      String pid = Long.toString(host.pid());

      Command typo = agentCommand("attach", pid, "host=127.0.0.1,port=abc");
      assertThat(typo.exit()).isEqualTo(2);
      assertThat(typo.out()).isEmpty();
      assertThat(typo.err().lines())
          .containsExactly(
              "resync-meter attach: bad value for agent argument port 'abc': expected a port number from 0 to 65535 (0 picks a free port); nothing was loaded");
      Command strays = agentCommand("attach", pid, "=,,host=127.0.0.1,port=0");
      assertThat(strays.exit()).isEqualTo(2);
      assertThat(strays.err().lines())
          .containsExactly(
              "resync-meter attach: malformed agent argument '=': expected key=value with key one of [host, port, disable, tls-cert, tls-key, tls-client-ca, basic-auth-user, basic-auth-password-file]; nothing was loaded",
              "resync-meter attach: empty agent argument (stray ',') in '=,,host=127.0.0.1,port=0'; nothing was loaded");

      Command inUse = agentCommand("attach", pid, "host=127.0.0.1,port=" + taken.getLocalPort());
      assertOneLine(inUse, "resync-meter attach: the agent did not start in " + pid + " (");
      assertThat(inUse.err())
          .contains(": cannot serve metrics on 127.0.0.1:" + taken.getLocalPort() + ": the port is in use; it runs as it did")
          .doesNotContain("Exception");
      host.awaitStderr(l -> l.startsWith("[resync-meter] WARN cannot serve metrics"), TIMEOUT);
      assertThat(host.agentLines())
          .containsExactly("[resync-meter] WARN cannot serve metrics on 127.0.0.1:" + taken.getLocalPort() + ": the port is in use; not started, the application runs as it did");
      assertThat(agentCommand("list").out().lines()).anyMatch(l -> l.startsWith(pid + " ") && l.contains(" no "));

      Command corrected = agentCommand("attach", pid, "host=127.0.0.1,port=0");
      assertThat(corrected.err()).isEmpty();
      assertThat(corrected.exit()).isZero();
      assertThat(Scrape.of("http://127.0.0.1:" + servedPort(corrected) + "/metrics").series().keySet()).anyMatch(s -> s.startsWith("resync_meter_info{"));
      AgentProcess.end(host);
    }
  }

  @Test
  void aMissingPidAnAmbiguousNameAnUnknownNameAndATargetThatRefusesAttachFailInOneLine() throws Exception {
    assertOneLine(agentCommand("attach", "2147483646"), "resync-meter attach: no process with pid 2147483646");
    assertOneLine(agentCommand("attach", "no.such.MainClass"), "resync-meter attach: no JVM of this user has a main class containing 'no.such.MainClass'");
    try (AgentProcess one = AgentProcess.startWithoutAgent("idle");
        AgentProcess two = AgentProcess.startWithoutAgent("idle");
        AgentProcess closed = AgentProcess.startWithoutAgent(List.of("-XX:+DisableAttachMechanism"), "idle")) {
      for (AgentProcess host : List.of(one, two, closed)) {
        host.awaitStdout(l -> l.equals("host ran"), TIMEOUT);
      }
      Command ambiguous = agentCommand("attach", "resync-meter-examples.jar");
      assertOneLine(ambiguous, "resync-meter attach: 'resync-meter-examples.jar' matches ");
      assertThat(ambiguous.err()).contains(one.pid() + " (").contains(two.pid() + " (").endsWith("; give the pid\n");
      Command refused = agentCommand("attach", Long.toString(closed.pid()));
      assertOneLine(refused, "resync-meter attach: cannot attach to " + closed.pid() + ": it does not answer the attach request");
      assertThat(closed.agentLines()).isEmpty();
      for (AgentProcess host : List.of(one, two, closed)) {
        AgentProcess.end(host);
      }
    }
  }

  /**
   * The demo started without the agent, as docs/attach-and-report.md shows for trying attach: it says
   * no agent is there yet, and after an attach with port=0 (the agent on every address, on a port it
   * picks) its reports read that port, the whole run's too.
   */
  @Test
  void theDemoStartedWithoutTheAgentReportsFromThePortTheAttachedAgentServes() throws Exception {
    try (AgentProcess demo = AgentProcess.startWithoutAgent("demo", "--seconds", "21")) {
      String pid = Long.toString(demo.pid());
      String banner = demo.awaitStdout(l -> l.startsWith("demo: controllers configmap-every-update"), TIMEOUT);
      assertThat(banner)
          .endsWith("; no metrics yet: no resync-meter agent in this JVM (pid " + pid + "); attach one (java -jar agent/target/resync-meter-agent.jar attach "
              + pid + " port=0) and the reports read where it serves");
      Command attach = agentCommand("attach", pid, "port=0");
      assertThat(attach.exit()).as(attach.err()).isZero();
      Matcher served = Pattern.compile("serving http://0\\.0\\.0\\.0:(\\d+)/metrics; counting starts now").matcher(attach.out());
      assertThat(served.find()).as(attach.out()).isTrue();
      String url = "http://127.0.0.1:" + served.group(1) + "/metrics";
      assertThat(demo.waitFor(TIMEOUT)).as(demo.transcript()).isZero();
      List<String> out = demo.stdout();
      assertThat(out).as(demo.transcript()).contains("resync cost of " + url + ", since the agent started");
      int whole = out.indexOf(out.stream().filter(l -> l.endsWith("] demo: stopping; the whole run")).findFirst().orElseThrow());
      assertThat(out.get(whole + 1)).isEqualTo("resync cost of " + url + ", since the agent started");
      assertThat(out.subList(whole, out.size())).as(demo.transcript()).contains("  ConfigMap configmap-every-update (resync every 5 s)");
      // before the attach, if a report came then: no agent yet, never another JVM's port
      assertThat(out).as(demo.transcript()).noneMatch(l -> l.contains(":9464/"));
      assertThat(out).filteredOn(l -> l.matches("\\[\\d\\d:\\d\\d:\\d\\d\\] no resync-meter agent .*")).hasSizeLessThanOrEqualTo(1);
      assertThat(demo.stderr()).as(demo.transcript()).noneMatch(l -> l.contains("Exception") || l.startsWith("\tat "));
    }
  }

  @Test
  void aBadCommandLineGivesTheUsageWithExitTwo() throws Exception {
    Command none = agentCommand("attach");
    assertThat(none.exit()).isEqualTo(2);
    assertThat(none.err()).startsWith("resync-meter attach: which JVM?").contains("usage: java -jar resync-meter-agent.jar attach");
    Command unknown = agentCommand("detach");
    assertThat(unknown.exit()).isEqualTo(2);
    assertThat(unknown.err()).startsWith("resync-meter: unknown command 'detach'");
    Command version = agentCommand("--version");
    assertThat(version.exit()).as(version.err()).isZero();
    assertThat(version.out()).matches("resync-meter \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?\n");
    Command help = agentCommand("--help");
    assertThat(help.exit()).isZero();
    assertThat(help.out()).contains("--format table|json|markdown").contains("--fail-on CONDITION").contains("--prometheus URL");
  }

  /**
   * Attaches to a scenario that waits for it ({@code READY FOR ATTACH}, then a line on its input), lets
   * it run to {@code SCENARIO DONE}, and scrapes what the agent counted.
   */
  private static Scrape attachAndRun(AgentProcess host) throws Exception {
    host.awaitStdout("READY FOR ATTACH"::equals, TIMEOUT);
    Command attach = agentCommand("attach", Long.toString(host.pid()), "host=127.0.0.1,port=0");
    assertThat(attach.exit()).as(attach.err()).isZero();
    host.send("attached");
    host.awaitStdout("SCENARIO DONE"::equals, Duration.ofSeconds(120));
    return Scrape.of("http://127.0.0.1:" + servedPort(attach) + "/metrics");
  }

  /**
   * The port the attached agent serves on, from the attach command's answer. Tests attach with port 0:
   * a port found free and closed again before the agent binds it can meanwhile be taken by the host
   * (its API server binds port 0 too), and the attach then fails as it should.
   */
  private static int servedPort(Command attach) {
    Matcher served = SERVED.matcher(attach.out());
    assertThat(served.find()).as(attach.out()).isTrue();
    return Integer.parseInt(served.group(1));
  }

  private static final Pattern SERVED = Pattern.compile("serving http://127\\.0\\.0\\.1:(\\d+)/metrics; counting starts now");

  private static void assertOneLine(Command command, String start) {
    assertThat(command.exit()).as(command.err()).isEqualTo(1);
    assertThat(command.out()).isEmpty();
    assertThat(command.err().lines()).singleElement().asString().startsWith(start);
  }
}
