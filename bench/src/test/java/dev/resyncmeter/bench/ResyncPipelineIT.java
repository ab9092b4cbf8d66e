package dev.resyncmeter.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resyncmeter.testkit.ForkedJvm;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The e2e program in a forked JVM, on its own: how it ends when it cannot measure. */
class ResyncPipelineIT {

  @Test
  void aProgramThatCannotFinishItsFirstListSaysSoAndExitsInsteadOfLingering() throws Exception {
    // A wave timeout of zero: the first list can never be handled in time. The informer's and the
    // controller's threads are not daemons; before, they kept the JVM alive and the bench waited on
    // it for its whole bound (50 minutes).
    try (ForkedJvm jvm = start(List.of("-Xmx256m"), "2000", "1000", "0", "1", "0")) {
      String failed = jvm.awaitStdout(line -> line.startsWith("FAILED "), Duration.ofSeconds(60));
      int exit = jvm.waitFor(Duration.ofSeconds(60));

      assertThat(failed).contains("the first list was not handled in time");
      assertThat(exit).isEqualTo(1);
    }
  }

  @Test
  void theFirstListIsDoneOnceHandledAndEveryLaterWaveIsExactlyOneCallAndOneReconcilePerObject() throws Exception {
    List<String> stdout = completedRun(List.of("-Xmx512m"), "2000", "1000", "0", "2", "30");

    String counts = stdout.stream().filter(l -> l.startsWith("counts ")).findFirst().orElseThrow();
    // the list's adds, then two resync waves of 2,000 updates each, each reconciled once
    assertThat(PipelineRuns.keyValues(counts)).containsEntry("adds", 2000L).containsEntry("updates", 4000L).containsEntry("reconciles", 6000L);
  }

  @Test
  void theHostWorkControlBusiesEveryReconcileForTheGivenTime() throws Exception {
    // 400 reconciles of at least 2 ms each on two workers: no wave can end in less than 400 ms
    List<String> stdout = completedRun(List.of("-Xmx512m", "-D" + ResyncPipeline.RECONCILE_WORK_PROPERTY + "=2000000"), "400", "1000", "0", "1", "30");

    String wave = stdout.stream().filter(l -> l.contains(" measured ")).findFirst().orElseThrow();
    assertThat(PipelineRuns.keyValues(wave).get("waveNanos")).isGreaterThanOrEqualTo(400_000_000L);
  }

  @Test
  void theJitProfileControlCallsTheSharedCollectionMethodsBeforeTheInformerStartsAndCountsStayExact() throws Exception {
    List<String> stdout = completedRun(List.of("-Xmx512m", "-D" + ResyncPipeline.POLLUTED_PROPERTY + "=true"), "400", "1000", "0", "1", "30");

    assertThat(stdout.get(0)).startsWith("polluted ");
    String counts = stdout.stream().filter(l -> l.startsWith("counts ")).findFirst().orElseThrow();
    assertThat(PipelineRuns.keyValues(counts)).containsEntry("adds", 400L).containsEntry("updates", 400L).containsEntry("reconciles", 800L);
  }

  /** The program with {@code options} (its log quiet) and {@code args}. */
  private static ForkedJvm start(List<String> options, String... args) throws IOException {
    List<String> all = new ArrayList<>(options);
    all.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    return ForkedJvm.startMain(all, ResyncPipeline.class, List.of(args), ForkedJvm.ANY_AGENT_VARIABLES);
  }

  /** Runs the program to its end, which must be a clean exit, and returns what it printed. */
  private static List<String> completedRun(List<String> options, String... args) throws Exception {
    try (ForkedJvm jvm = start(options, args)) {
      jvm.awaitStdout("WAVES DONE"::equals, Duration.ofSeconds(120));
      jvm.closeInput();
      assertThat(jvm.waitFor(Duration.ofSeconds(60))).isZero();
      return jvm.stdout();
    }
  }
}
