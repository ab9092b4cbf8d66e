package dev.resyncmeter.examples.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resyncmeter.testkit.Jdks;
import dev.resyncmeter.testkit.Scrape;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The end-to-end scenarios on every client-java version the agent covers and on both JVMs: the
 * examples' classes (compiled against 27.0.0) run with the agent on one version's own libraries
 * ({@code compatibility/client-java-<version>/target/lib}: client-java, the matching
 * client-java-extended, simpleclient, slf4j-simple), on Java 17 and Java 25. Each run must export
 * exactly the application's own counts, name its client-java version, announce itself in one line
 * and report no fault of its own.
 */
class ClientVersionMatrixIT {

  static final List<String> CLIENT_JAVA_VERSIONS = List.of("20.0.0", "22.0.0", "24.0.0", "25.0.0", "26.0.0", "27.0.0");
  /**
   * Java 25 runs the oldest version with the resync scenario and the newest with the reconcile
   * scenario: the versions in between differ in no JVM matter, and each version meets both scenarios
   * on Java 17.
   */
  static Stream<Arguments> resyncRuns() {
    return Stream.concat(CLIENT_JAVA_VERSIONS.stream().map(version -> Arguments.of(version, 17)), Stream.of(Arguments.of("20.0.0", 25)));
  }

  static Stream<Arguments> reconcileRuns() {
    return Stream.concat(CLIENT_JAVA_VERSIONS.stream().map(version -> Arguments.of(version, 17)), Stream.of(Arguments.of("27.0.0", 25)));
  }

  @ParameterizedTest(name = "client-java {0} on Java {1}")
  @MethodSource("resyncRuns")
  void theResyncScenarioIsCountedExactly(String clientVersion, int java) throws Exception {
    try (AgentProcess scenario = start(clientVersion, java, ExactCounts.RESYNC_SCENARIO)) {
      Scrape scrape = ExactCounts.resyncScenarioScrape(scenario);

      ExactCounts.assertResyncScenario(scenario.truth(), scrape);
      assertTheAgentRanCleanlyOn(clientVersion, scenario, scrape);
    }
  }

  @ParameterizedTest(name = "client-java {0} on Java {1}")
  @MethodSource("reconcileRuns")
  void theReconcileScenarioIsCountedExactly(String clientVersion, int java) throws Exception {
    try (AgentProcess scenario = start(clientVersion, java, ExactCounts.RECONCILE_SCENARIO)) {
      Scrape scrape = ExactCounts.reconcileScenarioScrape(scenario);

      ExactCounts.assertReconcileScenario(scenario.truth(), scrape);
      assertTheAgentRanCleanlyOn(clientVersion, scenario, scrape);
    }
  }

  /** The examples' classes and one client-java version's libraries, on a JDK of that feature version. */
  private static AgentProcess start(String clientVersion, int java, String... command) throws Exception {
    Path javaHome = Jdks.home(java);
    Path lib = compatibilityDir().resolve("client-java-" + clientVersion).resolve("target").resolve("lib");
    if (!Files.isDirectory(lib)) {
      throw new IllegalStateException(lib + " is missing: run `mvn verify` from the top folder, which builds it first");
    }
    String classPath = examplesClasses() + File.pathSeparator + lib + File.separator + "*";
    return AgentProcess.start(javaHome, List.of("-cp", classPath, "dev.resyncmeter.examples.Main"), "host=127.0.0.1,port=0", command);
  }

  private static void assertTheAgentRanCleanlyOn(String clientVersion, AgentProcess scenario, Scrape scrape) throws Exception {
    assertThat(scrape.series().keySet())
        .as("resync_meter_info names the client-java version on the class path")
        .anyMatch(s -> s.startsWith("resync_meter_info{client=\"client-java\",client_version=\"" + clientVersion + "\",version=\""));
    assertThat(scenario.agentLines())
        .as("the agent's own stderr lines (the JVM's warnings aside)")
        .singleElement()
        .asString()
        .matches(
            "\\[resync-meter\\] INFO resync-meter \\S+ serving http://127\\.0\\.0\\.1:\\d+/metrics; instrumenting client-java "
                + Pattern.quote(clientVersion)
                + " \\(informer, workqueue, controller, requests"
                + Fabric8VersionMatrixIT.notWovenAhead("client-java", clientVersion)
                + "\\)");
    // Java 24+ warns on stderr about libraries calling sun.misc.Unsafe, naming the caller: never us.
    assertThat(scenario.stderr())
        .as("JVM warnings naming the agent")
        .filteredOn(line -> line.startsWith("WARNING:"))
        .noneMatch(line -> line.contains("dev.resyncmeter.agent") || line.contains("resync-meter-agent.jar"));
    assertThat(scrape.series().keySet()).as("faults the agent caught in itself").noneMatch(s -> s.startsWith("resync_meter_errors_total"));
    assertThat(scenario.closeInputAndWait(Duration.ofSeconds(30))).as("exit code\n%s", scenario.transcript()).isZero();
  }

  private static Path compatibilityDir() {
    return Path.of(System.getProperty("resyncmeter.compatibilityDir", "../compatibility")).toAbsolutePath().normalize();
  }

  private static Path examplesClasses() {
    return Path.of(System.getProperty("resyncmeter.examplesClasses", "target/classes")).toAbsolutePath().normalize();
  }
}
