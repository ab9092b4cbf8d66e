package dev.resyncmeter.bench;

import dev.resyncmeter.testkit.ForkedJvm;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The parent side of the queue-only wave: runs {@link QueueWave} in a forked JVM per variant, the
 * variants alternating round by round, and reports each variant's wave as the median over its runs
 * of each run's median wave. Beside no agent and resync-meter it runs resync-meter without its
 * workqueue part and, as a control, no agent with the JDK's collection profiles polluted: together
 * they split resync-meter's added time into its own queue work and what the JIT does to the host's
 * code once an agent has run.
 */
final class QueueWaveRuns {

  /** Sizes of one queue-wave section. */
  record Settings(int objects, int warmupWaves, int waves, int rounds) {
    Map<String, Object> json() {
      return JsonReport.object(
          "objects", objects, "warmupWaves", warmupWaves, "measuredWaves", waves, "runsPerVariant", rounds, "workers", 2, "heap", "-Xms2g -Xmx2g");
    }
  }

  /** One way to run the program. */
  record Variant(String key, String title, List<String> options, boolean polluted) {}

  /** A variant's wave over its runs: wall time and process CPU per wave, in milliseconds. */
  record Row(Variant variant, Stats wallMillis, Stats cpuMillis) {}

  private final Settings settings;
  private final Results results;

  QueueWaveRuns(Settings settings, Results results) {
    this.settings = settings;
    this.results = results;
  }

  static Settings settings(Mode mode) {
    return switch (mode) {
      case SMOKE -> new Settings(20_000, 1, 3, 1);
      case QUICK -> new Settings(20_000, 1, 5, 2);
      case FULL -> new Settings(100_000, 3, 10, 8);
    };
  }

  static List<Variant> variants(String resyncMeterOption) {
    return List.of(
        new Variant("none", "no agent", List.of(), false),
        new Variant("resync-meter", "resync-meter", List.of(resyncMeterOption), false),
        new Variant("resync-meter-no-workqueue", "resync-meter with disable=clientjava-workqueue", List.of(resyncMeterOption + ",disable=clientjava-workqueue"), false),
        new Variant("none-polluted", "no agent, the JDK's collection profiles polluted first", List.of(), true));
  }

  /** The queue section: every variant, each row printed, the rows handed to the results. */
  void section(String resyncMeterOption) throws Exception {
    List<Row> rows = run(variants(resyncMeterOption));
    for (Row row : rows) {
      System.out.println(ConsoleLines.queueWave(row.variant().key(), row.wallMillis().median(), row.cpuMillis().median()));
    }
    results.queueWave(settings.json(), rows);
  }

  /** Every variant once per round, in an order rotated by the round. */
  List<Row> run(List<Variant> variants) throws Exception {
    Map<Variant, List<Double>> wall = new LinkedHashMap<>();
    Map<Variant, List<Double>> cpu = new LinkedHashMap<>();
    for (Variant variant : variants) {
      wall.put(variant, new ArrayList<>());
      cpu.put(variant, new ArrayList<>());
    }
    for (int round = 0; round < settings.rounds(); round++) {
      for (int i = 0; i < variants.size(); i++) {
        Variant variant = variants.get((i + round) % variants.size());
        double[] medians = runOnce(variant);
        wall.get(variant).add(medians[0]);
        cpu.get(variant).add(medians[1]);
      }
    }
    List<Row> rows = new ArrayList<>();
    for (Variant variant : variants) {
      rows.add(new Row(variant, Stats.of(wall.get(variant)), Stats.of(cpu.get(variant))));
    }
    return rows;
  }

  /** One run's median wave: wall and process CPU milliseconds. */
  private double[] runOnce(Variant variant) throws Exception {
    List<String> options = new ArrayList<>(PipelineRuns.JVM_OPTIONS); // the e2e program's heap and logging
    options.addAll(variant.options());
    List<String> args =
        List.of(
            Integer.toString(settings.objects()), Integer.toString(settings.warmupWaves()), Integer.toString(settings.waves()),
            variant.polluted() ? "polluted" : "clean");
    Duration bound = Duration.ofSeconds(60 + (long) (settings.warmupWaves() + settings.waves()) * (QueueWave.WAVE_TIMEOUT_SECONDS + 1));
    try (ForkedJvm jvm = ForkedJvm.startMain(options, QueueWave.class, args, ForkedJvm.ANY_AGENT_VARIABLES)) {
      jvm.awaitStdout("WAVES DONE"::equals, bound);
      List<Double> wall = new ArrayList<>();
      List<Double> cpu = new ArrayList<>();
      long reconciles = -1;
      long expected = -2;
      for (String line : jvm.stdout()) {
        Map<String, Long> values = PipelineRuns.keyValues(line);
        if (line.startsWith("wave ") && line.contains(" measured ")) {
          wall.add(values.get("wallNanos") / 1e6);
          cpu.add(values.get("cpuNanos") / 1e6);
        } else if (line.startsWith("counts ")) {
          reconciles = values.get("reconciles");
          expected = values.get("expected");
        }
      }
      int exit = jvm.waitFor(Duration.ofSeconds(60));
      boolean complete = exit == 0 && reconciles == expected && wall.size() == settings.waves();
      results.check(
          "queue wave " + variant.key() + ": every key added was reconciled once",
          complete,
          "exit " + exit + ", reconciles " + reconciles + " of " + expected + ", " + wall.size() + " measured waves");
      if (!complete) {
        throw new IllegalStateException("the queue-wave program did not complete\n" + jvm.transcript());
      }
      return new double[] {Stats.of(wall).median(), Stats.of(cpu).median()};
    }
  }
}
