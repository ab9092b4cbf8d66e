package dev.resyncmeter.examples.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resyncmeter.testkit.Scrape;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Isolation: a controller with its own, different Micrometer, Prometheus registry, ByteBuddy and
 * SLF4J binding (Logback, with its own pattern) runs the resync scenario with the agent attached.
 * Both registries work and stay apart, the host's ByteBuddy works, its logging is untouched, the
 * agent's counts are exact, and nothing but the agent's start line reaches stderr.
 *
 * <p>In the examples' test package to reuse their end-to-end helpers; the jar it runs is this
 * module's {@code host-own-libraries.jar} (see {@code resyncmeter.examplesJar} in the pom).
 */
class OwnLibrariesHostIT {

  /**
   * The host configures its own libraries as their documentation says: its Prometheus client through
   * an {@code IO_PROMETHEUS_*} variable (our relocated copy once refused to start on any it did not
   * know), its SLF4J binding through {@code slf4j.provider} (our copy once tried to load the host's
   * Logback and printed a ClassCastException), its SLF4J's own reports quieter.
   */
  private static final String JVM_OPTIONS =
      "-Dslf4j.provider=ch.qos.logback.classic.spi.LogbackServiceProvider -Dslf4j.internal.verbosity=WARN";
  private static final Map<String, String> HOST_SETTINGS =
      Map.of("IO_PROMETHEUS_METRICS_EXEMPLARS_ENABLED", "false", "JDK_JAVA_OPTIONS", JVM_OPTIONS);

  private static AgentProcess host;
  private static Map<String, Long> truth;
  private static Scrape agentScrape;
  private static Scrape hostScrape;

  @BeforeAll
  static void runHost() throws Exception {
    host = AgentProcess.start("host=127.0.0.1,port=0", HOST_SETTINGS, "scenario", "4", "2", "6", "2");
    String agentUrl = host.metricsUrl(Duration.ofSeconds(30));
    String hostUrl = host.awaitStdout(l -> l.startsWith("host metrics "), Duration.ofSeconds(30)).substring("host metrics ".length());
    host.awaitStdout("SCENARIO DONE"::equals, Duration.ofSeconds(120));
    truth = host.truth();
    agentScrape = Scrape.of(agentUrl);
    hostScrape = Scrape.of(hostUrl);
  }

  @AfterAll
  static void stop() throws Exception {
    AgentProcess.end(host);
  }

  @Test
  void theHostRunsItsOwnVersionsOfTheAgentsLibraries() throws Exception {
    // The agent carries Micrometer 1.17.2, ByteBuddy 1.18.17 and slf4j-simple, all relocated.
    assertThat(host.awaitStdout(l -> l.startsWith("host libraries "), Duration.ofSeconds(5)))
        .isEqualTo(
            "host libraries micrometer-core-" + System.getProperty("host.micrometer.version") + ".jar"
                + " byte-buddy-" + System.getProperty("host.bytebuddy.version") + ".jar"
                + " logback-classic-" + System.getProperty("host.logback.version") + ".jar");
    assertThat(host.stdout()).contains("host slf4j binding ch.qos.logback.classic.LoggerContext");
  }

  @Test
  void everyCountTheApplicationObservedIsExportedExactly() {
    assertThat(truth).hasSizeGreaterThan(20);
    ExactCounts.assertExported(truth, agentScrape);
    ExactCounts.assertNothingElse(truth, agentScrape, ExactCounts.INFORMER_FAMILIES);
  }

  @Test
  void theHostsRegistryServesItsOwnMeterAndNoneOfTheAgents() {
    assertThat(hostScrape.status()).isEqualTo(200);
    assertThat(hostScrape.series()).containsEntry("host_generated_classes_total", 1.0);
    assertThat(hostScrape.series().keySet())
        .noneMatch(s -> s.startsWith("informer_") || s.startsWith("workqueue_") || s.startsWith("controller_") || s.startsWith("resync_meter_"));
  }

  @Test
  void theAgentsRegistryHasNoneOfTheHostsMeters() {
    assertThat(agentScrape.status()).isEqualTo(200);
    assertThat(agentScrape.series().keySet()).noneMatch(s -> s.startsWith("host_"));
    assertThat(agentScrape.series().keySet()).noneMatch(s -> s.startsWith("resync_meter_errors_total"));
  }

  @Test
  void theHostsByteBuddyMakesItsClass() {
    assertThat(host.stdout()).contains("host bytebuddy made by the host's ByteBuddy");
  }

  @Test
  void theHostsLogLinesAndClientJavasComeOutInTheHostsLogbackPattern() {
    List<String> stdout = host.stdout();
    assertThat(stdout).contains("host-log INFO OwnLibrariesHost - host started, serving its own registry");
    assertThat(stdout).anyMatch(l -> l.matches("host-log INFO ReflectorRunnable - .*Start listing and watching.*"));
    // Any line naming a level is a log line: each is in the host's pattern, none in another layout.
    assertThat(stdout)
        .filteredOn(l -> l.matches(".*\\b(TRACE|DEBUG|INFO|WARN|ERROR)\\b.*"))
        .allMatch(l -> l.startsWith("host-log "), "starts with the host's pattern");
  }

  @Test
  void stderrHoldsOnlyTheAgentsStartLine() {
    // No linkage error, no SLF4J provider warning, no stack trace: one line, the agent's own
    // (the java launcher's notes of the options it picked up from the environment aside).
    assertThat(host.stderr()).contains("NOTE: Picked up JDK_JAVA_OPTIONS: " + JVM_OPTIONS);
    assertThat(host.stderr())
        .filteredOn(l -> !l.startsWith("NOTE: Picked up ") && !l.startsWith("Picked up JAVA_TOOL_OPTIONS: "))
        .singleElement()
        .asString()
        .matches(
            "\\[resync-meter\\] INFO resync-meter \\S+ serving http://127\\.0\\.0\\.1:\\d+/metrics; instrumenting client-java 27\\.0\\.0 \\(informer, workqueue, controller, requests\\), fabric8 7\\.6\\.1 \\(informer, requests\\), JOSDK 5\\.3\\.2 \\(reconciler\\)");
    assertThat(agentScrape.series().keySet())
        .anyMatch(s -> s.startsWith("resync_meter_info{client=\"client-java\",client_version=\"27.0.0\",version=\""));
  }
}
