package dev.resyncmeter.examples.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resyncmeter.testkit.Scrape;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The agent never changes what its host does. The phased reconcile scenario, in which a handler
 * throws on every call and a reconciler throws an unchecked and then a checked exception, runs three
 * times: without the agent, with it, and with it failing inside every bridge call (the test-only
 * switch {@code -Dresyncmeter.test.injectFaults=true}). The application's own counts, and the
 * exceptions that client-java reports for the host, are the same in all three runs.
 */
class HostBehaviourIT {

  private static final String INJECT_FAULTS = "-Dresyncmeter.test.injectFaults=true";
  private static final Pattern HOST_EXCEPTION = Pattern.compile("([\\w$.]+(?:Exception|Error))(: [^\\r\\n]*fails on purpose[^\\r\\n]*)");
  private static final List<String> COMPONENTS = List.of("clientjava-informer", "clientjava-workqueue", "clientjava-controller");

  private static Run withoutAgent;
  private static Run withAgent;
  private static Run withFailingAgent;

  @BeforeAll
  static void runTheScenarioThreeTimes() throws Exception {
    withoutAgent = Run.of(AgentProcess.startWithoutAgent("reconcile-scenario", "phases"), false);
    withAgent = Run.of(AgentProcess.start("host=127.0.0.1,port=0", Map.of(), "reconcile-scenario", "phases"), true);
    withFailingAgent =
        Run.of(AgentProcess.start(List.of(INJECT_FAULTS), "host=127.0.0.1,port=0", Map.of(), "reconcile-scenario", "phases"), true);
  }

  @Test
  void theApplicationMakesTheSameHandlerCallsAndReconcilesWithoutTheAgentWithItAndWithItFailing() {
    assertThat(withoutAgent.truth).hasSizeGreaterThan(25);
    assertThat(withAgent.truth).isEqualTo(withoutAgent.truth);
    assertThat(withFailingAgent.truth).isEqualTo(withoutAgent.truth);
  }

  @Test
  void theHostsOwnExceptionsReachItUnchanged() {
    // Each failing-handler call and each failing reconcile is reported once by client-java.
    assertThat(withoutAgent.hostExceptions)
        .anyMatch(e -> e.startsWith("java.lang.IllegalArgumentException: the scenario's handler fails on purpose in onAdd"))
        .anyMatch(e -> e.startsWith("java.lang.IllegalArgumentException: the scenario's handler fails on purpose in onUpdate"))
        .anyMatch(e -> e.startsWith("java.lang.IllegalStateException: the scenario's reconciler fails on purpose"))
        .anyMatch(e -> e.startsWith("java.io.IOException: the scenario's reconciler fails on purpose with a checked exception"));
    assertThat(withAgent.hostExceptions).containsExactlyInAnyOrderElementsOf(withoutAgent.hostExceptions);
    assertThat(withFailingAgent.hostExceptions).containsExactlyInAnyOrderElementsOf(withoutAgent.hostExceptions);
    for (Run run : List.of(withAgent, withFailingAgent)) {
      assertThat(run.stderr).noneMatch(l -> l.contains("UndeclaredThrowableException"));
    }
  }

  @Test
  void theThrowingHandlersCallsAreCountedExactly() {
    Map<String, Long> failingHandler = new java.util.TreeMap<>(withAgent.truth);
    failingHandler.keySet().removeIf(series -> !series.contains("handler=\"FailingHandler\""));
    assertThat(failingHandler).hasSizeGreaterThanOrEqualTo(5);
    ExactCounts.assertExported(failingHandler, withAgent.scrape);
  }

  @Test
  void withTheAgentWorkingItReportsNoFault() {
    assertThat(withAgent.scrape.series().keySet()).noneMatch(s -> s.startsWith("resync_meter_errors_total"));
    assertThat(withAgent.agentLines).singleElement().asString().contains(" INFO resync-meter ");
  }

  @Test
  void faultsInsideTheAgentAreCountedByComponentAndLoggedAtMostOnceAMinutePerComponent() {
    double faults = 0;
    for (String component : COMPONENTS) {
      double counted = withFailingAgent.scrape.value("resync_meter_errors_total{component=\"" + component + "\"}");
      assertThat(counted).as(component).isGreaterThanOrEqualTo(1);
      faults += counted;
    }
    List<String> warnings = withFailingAgent.agentLines.stream().filter(l -> l.contains(" WARN ")).toList();
    assertThat(warnings).allMatch(l -> l.startsWith("[resync-meter] WARN internal fault in "));
    // One line per component at once, another only after a minute: the run may just pass one.
    for (String component : COMPONENTS) {
      assertThat(warnings).filteredOn(l -> l.contains("internal fault in " + component + " ")).hasSizeBetween(1, 2);
    }
    assertThat(faults).as("faults counted, against %s lines logged", warnings.size()).isGreaterThan(10.0 * warnings.size());
  }

  @Test
  void aFailingAgentCountsNothingRatherThanSomethingWrong() {
    assertThat(withFailingAgent.scrape.series().keySet())
        .noneMatch(s -> s.startsWith("informer_") || s.startsWith("controller_") || s.startsWith("workqueue_"));
  }

  /** What one run of the scenario showed: the application's counts, its stderr, and the agent's scrape. */
  private record Run(Map<String, Long> truth, List<String> hostExceptions, List<String> stderr, List<String> agentLines, Scrape scrape) {

    static Run of(AgentProcess process, boolean agent) throws Exception {
      try {
        String url = agent ? process.metricsUrl(Duration.ofSeconds(30)) : null;
        process.awaitStdout("SLOW STARTED"::equals, Duration.ofSeconds(120));
        process.send("release");
        process.awaitStdout("SCENARIO DONE"::equals, Duration.ofSeconds(60));
        Scrape scrape = agent ? Scrape.of(url) : null;
        Map<String, Long> truth = process.truth();
        assertThat(process.closeInputAndWait(Duration.ofSeconds(30))).as(process.transcript()).isZero();
        return new Run(truth, hostExceptions(process.stderr()), process.stderr(), process.agentLines(), scrape);
      } finally {
        process.close();
      }
    }

    /** The exceptions the scenario threw on purpose, as client-java's logging reported them. */
    private static List<String> hostExceptions(List<String> stderr) {
      List<String> found = new ArrayList<>();
      for (String line : stderr) {
        if (line.startsWith("[resync-meter]") || line.trim().startsWith("at ")) {
          continue;
        }
        Matcher matcher = HOST_EXCEPTION.matcher(line);
        while (matcher.find()) {
          found.add(matcher.group(1) + matcher.group(2));
        }
      }
      return found;
    }
  }
}
