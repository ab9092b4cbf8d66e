package dev.resyncmeter.examples.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every sample of output in the README and docs/ is what the program prints today: the runs below
 * produce it, and each sample's shape (its words, numbers aside) must stand in its run's output. A
 * changed line of a report, a new line or a renamed field fails here until the docs show it. Line
 * breaks are not compared: the report wraps a long line where the width of its numbers makes it.
 */
class DocumentedSamplesIT {

  /** The runs samples may name (see {@link Documentation}). */
  static final Set<String> SAMPLES = Set.of(
          "demo client-java", "demo fabric8", "demo josdk", "start line", "report window", "attach", "attach line", "attach bad argument",
          "attach port in use", "demo port in use");

  static final Set<String> KEY_SAMPLES = Set.of("report json");

  /** Keys of the report's JSON that are values of a label (triggers, causes, reasons, verbs), not field names. */
  private static final Set<String> LABEL_VALUES =
      Set.of(
          "change", "own_write", "resync_noop", "relist_noop", "watch_noop", "periodic", "requeue", "other", "unknown", "watch", "resync", "relist", "expired",
          "error", "get", "list", "create", "update", "patch", "delete", "deletecollection");

  private static final Duration TIMEOUT = Duration.ofSeconds(90);
  private static final Pattern JSON_KEY = Pattern.compile("\"(\\w+)\":");
  private static final Pattern NAME = Pattern.compile("\"(\\w+)\"");

  private static final Map<String, List<String>> outputs = new HashMap<>();
  private static String json;

  @BeforeAll
  static void run() throws Exception {
    // the three demos side by side, as the docs show them: their whole run of 21 s
    Map<String, AgentProcess> demos = new HashMap<>();
    Map<String, String> urls = new HashMap<>();
    try {
      for (String library : List.of("client-java", "fabric8", "josdk")) {
        int port = freePort();
        urls.put(library, "http://127.0.0.1:" + port + "/metrics");
        demos.put(library, AgentProcess.start("host=127.0.0.1,port=" + port, Map.of(), "demo", "--library", library, "--metrics-url", urls.get(library), "--seconds", "21"));
      }
      AgentProcess clientJava = demos.get("client-java");
      clientJava.awaitStdout(l -> l.startsWith("demo: controllers "), TIMEOUT);
      // a window long enough to hold a resync whichever of client-java's ticks skip the handlers
      outputs.put("report window", AttachIT.agentCommand("report", "--url", urls.get("client-java"), "--window", "12s").out().lines().toList());
      json = AttachIT.agentCommand("report", "--url", urls.get("client-java"), "--window", "1s", "--format", "json").out();
      for (Map.Entry<String, AgentProcess> demo : demos.entrySet()) {
        assertThat(demo.getValue().waitFor(TIMEOUT)).as(demo.getValue().transcript()).isZero();
        outputs.put("demo " + demo.getKey(), demo.getValue().stdout());
      }
      outputs.put("start line", clientJava.agentLines().subList(0, 1));
    } finally {
      demos.values().forEach(AgentProcess::close);
    }
    // the demo where another program has the agent's port (on every address, as the agent binds by default)
    try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getByName("0.0.0.0"));
        AgentProcess demo = AgentProcess.start("port=" + taken.getLocalPort(), Map.of(), "demo")) {
      assertThat(demo.waitFor(TIMEOUT)).as(demo.transcript()).isEqualTo(1);
      outputs.put("demo port in use", demo.stderr().stream().filter(l -> l.startsWith("demo: ")).toList());
    }
    try (AgentProcess host = AgentProcess.startWithoutAgent("idle")) {
      host.awaitStdout(l -> l.equals("host ran"), TIMEOUT);
      String pid = Long.toString(host.pid());
      outputs.put("attach bad argument", AttachIT.agentCommand("attach", pid, "port=abc").err().lines().toList());
      try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
        outputs.put("attach port in use", asUsersJar(AttachIT.agentCommand("attach", pid, "host=127.0.0.1,port=" + taken.getLocalPort()).err()));
      }
      outputs.put("attach", asUsersJar(AttachIT.agentCommand("attach", pid, "host=127.0.0.1,port=" + freePort()).out()));
      outputs.put("attach line", List.of(host.awaitStderr(l -> l.startsWith("[resync-meter] INFO attached to a running JVM"), TIMEOUT)));
    }
  }

  @Test
  void everySampleOfOutputIsWhatItsRunPrints() {
    List<String> stale = new ArrayList<>();
    for (Path page : Documentation.pages()) {
      for (Documentation.Block block : Documentation.blocks(page)) {
        if (block.marker() == null || block.keys()) {
          continue;
        }
        List<String> output = outputs.get(block.marker());
        assertThat(output).as(block.where() + ": a run named " + block.marker()).isNotNull();
        List<String> sample = Documentation.shape(block.lines());
        int matched = Documentation.longestMatch(sample, Documentation.shape(output));
        if (matched < sample.size()) {
          stale.add(
              block.where() + " (" + block.marker() + "): the sample's words match up to '" + String.join(" ", sample.subList(0, matched)) + "', then "
                  + "the run prints otherwise. The run printed:\n" + String.join("\n", output));
        }
      }
    }
    assertThat(stale).isEmpty();
  }

  @Test
  void theDocumentedJsonFieldsAreTheReportsFields() {
    Set<String> printed = new TreeSet<>();
    Matcher key = JSON_KEY.matcher(json);
    while (key.find()) {
      printed.add(key.group(1));
    }
    for (Path page : Documentation.pages()) {
      for (Documentation.Block block : Documentation.blocks(page)) {
        if (block.keys()) {
          Set<String> documented = new LinkedHashSet<>();
          Matcher name = NAME.matcher(String.join("\n", block.lines()));
          while (name.find()) {
            documented.add(name.group(1));
          }
          assertThat(printed).as(block.where() + ": the fields documented, in " + json).containsAll(documented);
          Set<String> undocumented = new TreeSet<>(printed);
          undocumented.removeAll(documented);
          assertThat(undocumented).as(block.where() + ": the fields printed, not documented, in " + json).isSubsetOf(LABEL_VALUES);
        }
      }
    }
  }

  /**
   * Every jar a documented command runs ({@code java -jar JAR}, {@code -javaagent:JAR}) is there when
   * the command is run from the repository's root after the build: {@code agent/target/...}, not a
   * bare {@code resync-meter-agent.jar} that only works from inside target/. An absolute path stands
   * for the user's copy ({@code /path/to/...}) or a path in a container.
   */
  @Test
  void everyJarADocumentedCommandRunsIsWhereTheBuildLeavesIt() {
    List<String> missing = new ArrayList<>();
    int relative = 0;
    for (Path page : Documentation.pages()) {
      for (Documentation.Block block : Documentation.blocks(page)) {
        if (!block.language().equals("sh")) {
          continue;
        }
        for (String line : block.lines()) {
          for (Matcher jar = COMMAND_JAR.matcher(line); jar.find(); ) {
            String path = jar.group(1);
            if (path.startsWith("/")) {
              continue;
            }
            relative++;
            if (!Files.isRegularFile(Documentation.root().resolve(path))) {
              missing.add(block.where() + ": " + path + " is not there from the repository's root (" + line.trim() + ")");
            }
          }
        }
      }
    }
    assertThat(missing).isEmpty();
    assertThat(relative).as("documented commands run from the repository's root").isPositive();
  }

  private static final Pattern COMMAND_JAR = Pattern.compile("(?:java -jar |-javaagent:)(\\S+?\\.jar)");

  /** The examples' jar stands for the user's controller in the samples. */
  private static List<String> asUsersJar(String output) {
    return output.replace(AgentProcess.examplesJar().toString(), "my-controller.jar").lines().toList();
  }

  private static int freePort() throws Exception {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
