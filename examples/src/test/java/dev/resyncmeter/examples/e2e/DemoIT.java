package dev.resyncmeter.examples.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The demo as a user runs it: the report every 10 s, the whole run's report when it stops, and a
 * clean end; its command line answers --help and refuses a bad value in one line.
 */
class DemoIT {

  static final Duration TIMEOUT = Duration.ofSeconds(90);

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
      List<String> all = new java.util.ArrayList<>(out);
      all.addAll(demo.stderr());
      assertThat(all).noneMatch(l -> l.contains("Exception") || l.startsWith("\tat ") || l.contains(" ERROR "));
    }
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
      assertThat(table.out()).startsWith("resync cost of " + url + ", over 1.0 s\n");
      assertThat(table.out().lines()).allSatisfy(l -> assertThat(l.length()).isLessThanOrEqualTo(100));
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
  }

  private static String[] prepend(String first, String[] rest) {
    String[] all = new String[rest.length + 1];
    all[0] = first;
    System.arraycopy(rest, 0, all, 1, rest.length);
    return all;
  }
}
