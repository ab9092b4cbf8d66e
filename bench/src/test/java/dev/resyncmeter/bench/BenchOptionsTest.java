package dev.resyncmeter.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the command line asks for: the run's size, and which sections run in which order. */
class BenchOptionsTest {

  private static final Path TARGET = Path.of("/bench/target");

  @Test
  void aFullRunGoesThroughEverySectionWithTheSoakLast() throws Exception {
    BenchOptions options = BenchOptions.parse(new String[] {}, TARGET);

    assertThat(options.mode()).isEqualTo(Mode.FULL);
    assertThat(options.sections()).containsExactly("micro", "e2e", "queue", "depth", "startup", "soak");
    assertThat(options.agent()).isEqualTo(TARGET.resolve("resync-meter-agent.jar"));
    assertThat(options.resultsDir()).isEqualTo(Path.of("/bench/results"));
  }

  @Test
  void aQuickRunGoesThroughTheSameSectionsAsAFullRunAndASmokeRunLeavesTheSoakOut() throws Exception {
    assertThat(BenchOptions.parse(new String[] {"--quick"}, TARGET).sections()).containsExactly("micro", "e2e", "queue", "depth", "startup", "soak");
    assertThat(BenchOptions.parse(new String[] {"--smoke"}, TARGET).sections()).containsExactly("micro", "e2e", "queue", "depth", "startup");
    assertThat(BenchOptions.parse(new String[] {"--quick", "--only", "queue"}, TARGET).sections()).isEqualTo(List.of("queue"));
  }

  @Test
  void aQuickRunMeasuresEveryConfigurationAndBothJdksWithLessOfEach() {
    PipelineRuns.Settings quick = PipelineSection.settings(Mode.QUICK, false);
    PipelineRuns.Settings full = PipelineSection.settings(Mode.FULL, false);
    // the peers run in every round of a quick run, so each of their ratios pools every round
    assertThat(quick.runs()).isEqualTo(PipelineSection.PEER_PIPELINE_RUNS);
    assertThat(quick.objects() * quick.waves()).isLessThan(full.objects() * full.waves());
    assertThat(StartupSection.sizes(Mode.QUICK).allJdks()).isTrue();
    assertThat(StartupSection.sizes(Mode.QUICK).reconcileRepetitions()).isLessThan(StartupSection.sizes(Mode.FULL).reconcileRepetitions());
    assertThat(QueueWaveRuns.settings(Mode.QUICK).rounds()).isLessThan(QueueWaveRuns.settings(Mode.FULL).rounds());
    MicroSection.Sizes micro = MicroSection.sizes(Mode.QUICK);
    assertThat(micro.rounds() * micro.iterations()).isLessThan(MicroSection.sizes(Mode.FULL).rounds() * MicroSection.sizes(Mode.FULL).iterations());
    assertThat(SoakSection.repetitions(Mode.QUICK)).isLessThan(SoakSection.repetitions(Mode.FULL));
  }

  @Test
  void aCommandLineThatCannotRunSaysWhy() {
    assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--smoke", "--quick"}, TARGET)).hasMessage("--smoke and --quick are two sizes of one run: give one");
    assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--only", "waves"}, TARGET))
        .hasMessage("--only takes micro, e2e, queue, depth, startup, soak or heap, not waves");
    assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--label", "a b"}, TARGET)).hasMessage("--label takes letters, digits, '.', '_' and '-'");
    assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--agent"}, TARGET)).hasMessage("--agent needs a value");
    assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--fast"}, TARGET)).hasMessage("unknown option --fast");
  }
}
