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
 * The fabric8 and JOSDK scenarios on every version the agent covers: the examples' classes (compiled
 * against fabric8 7.6.1 and JOSDK 5.3.2) with the agent on one version's own class path
 * ({@code compatibility/fabric8-<version>/target/lib}: the client and its own mock server;
 * {@code compatibility/josdk-<version>/target/lib}: JOSDK, the fabric8 it is built on, that mock
 * server), on Java 17, and the newest of each on Java 25. Each run must export exactly the scenario's
 * own counts, name the versions, announce itself in one line and count no fault.
 */
class Fabric8VersionMatrixIT {

  static Stream<Arguments> fabric8Runs() {
    return Stream.of(
        Arguments.of("7.0.1", 17), Arguments.of("7.5.2", 17), Arguments.of("7.9.0", 17), Arguments.of("8.0.0", 17), Arguments.of("8.0.0", 25));
  }

  static Stream<Arguments> josdkRuns() {
    // JOSDK 5.1.5 is built on fabric8 7.3.1, 5.2.3 on 7.5.2, 5.3.2 on 7.6.1
    return Stream.of(
        Arguments.of("5.1.5", "7.3.1", 17), Arguments.of("5.2.3", "7.5.2", 17), Arguments.of("5.3.2", "7.6.1", 17), Arguments.of("5.3.2", "7.6.1", 25));
  }

  @ParameterizedTest(name = "fabric8 {0} on Java {1}")
  @MethodSource("fabric8Runs")
  void theFabric8ScenarioIsCountedExactly(String version, int java) throws Exception {
    try (AgentProcess scenario = start("fabric8-" + version, java, "fabric8-scenario")) {
      String url = scenario.metricsUrl(Duration.ofSeconds(60));
      scenario.awaitStdout("SCENARIO DONE"::equals, Duration.ofSeconds(120));
      Scrape scrape = Scrape.of(url);

      ExactCounts.assertFabric8Scenario(scenario.truth(), scrape, "ConfigMap");
      assertTheAgentRanCleanly(scenario, scrape, "fabric8 " + Pattern.quote(version) + " \\(informer, requests" + notWovenAhead("fabric8", version) + "\\)", "fabric8", version);
    }
  }

  @ParameterizedTest(name = "JOSDK {0} (fabric8 {1}) on Java {2}")
  @MethodSource("josdkRuns")
  void theJosdkScenarioIsCountedExactly(String version, String fabric8, int java) throws Exception {
    try (AgentProcess scenario = start("josdk-" + version, java, "josdk-scenario")) {
      String url = scenario.metricsUrl(Duration.ofSeconds(60));
      scenario.awaitStdout("SCENARIO DONE"::equals, Duration.ofSeconds(120));
      Scrape scrape = Scrape.of(url);

      ExactCounts.assertJosdkScenario(scenario.truth(), scrape);
      assertThat(scrape.series().keySet()).anyMatch(s -> s.startsWith("resync_meter_info{client=\"fabric8\",client_version=\"" + fabric8 + "\""));
      assertTheAgentRanCleanly(
          scenario, scrape, "fabric8 " + Pattern.quote(fabric8) + " \\(informer, requests" + notWovenAhead("fabric8", fabric8) + "\\), JOSDK " + Pattern.quote(version)
              + " \\(reconciler" + notWovenAhead("josdk", version) + "\\)",
          "josdk",
          version);
    }
  }

  /** What the start line adds to a library version the agent was not built with (and so did not weave ahead of time). */
  static String notWovenAhead(String library, String version) {
    boolean built = (library + " " + version).matches("fabric8 7\\.6\\.1|josdk 5\\.3\\.2|client-java 27\\.0\\.0");
    return built ? "" : Pattern.quote("; not woven ahead of time: ByteBuddy weaves it at run time");
  }

  /** The examples' classes and one version's libraries, on a JDK of that feature version. */
  private static AgentProcess start(String module, int java, String... command) throws Exception {
    Path lib = compatibilityDir().resolve(module).resolve("target").resolve("lib");
    if (!Files.isDirectory(lib)) {
      throw new IllegalStateException(lib + " is missing: run `mvn verify` from the top folder, which builds it first");
    }
    String classPath = examplesClasses() + File.pathSeparator + lib + File.separator + "*";
    return AgentProcess.start(Jdks.home(java), List.of("-cp", classPath, "dev.resyncmeter.examples.Main"), "host=127.0.0.1,port=0", command);
  }

  private static void assertTheAgentRanCleanly(AgentProcess scenario, Scrape scrape, String instrumenting, String client, String version)
      throws Exception {
    assertThat(scrape.series().keySet())
        .as("resync_meter_info names the version on the class path")
        .anyMatch(s -> s.startsWith("resync_meter_info{client=\"" + client + "\",client_version=\"" + version + "\",version=\""));
    assertThat(scenario.agentLines())
        .as("the agent's own stderr lines")
        .singleElement()
        .asString()
        .matches("\\[resync-meter\\] INFO resync-meter \\S+ serving http://127\\.0\\.0\\.1:\\d+/metrics; instrumenting " + instrumenting);
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
