package dev.resyncmeter.bench;

import dev.resyncmeter.testkit.ForkedJvm;
import dev.resyncmeter.testkit.Scrape;
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
      return OrderedMap.of(
          "objects", objects, "warmupWaves", warmupWaves, "measuredWaves", waves, "runsPerVariant", rounds, "workers", 2, "heap", "-Xms2g -Xmx2g");
    }
  }

  /** Which agent a variant runs with, and so what that agent must count. */
  enum Agent {
    NONE,
    ALL_PARTS,
    /** resync-meter with {@code disable=clientjava-workqueue}: its controller part still counts the reconciles, no add is counted. */
    WITHOUT_WORKQUEUE
  }

  /** One way to run the program. */
  record Variant(String key, String title, Agent agent, List<String> options, boolean polluted) {}

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
        new Variant("none", "no agent", Agent.NONE, List.of(), false),
        new Variant("resync-meter", "resync-meter", Agent.ALL_PARTS, List.of(resyncMeterOption), false),
        new Variant(
            "resync-meter-no-workqueue", "resync-meter with disable=clientjava-workqueue", Agent.WITHOUT_WORKQUEUE,
            List.of(resyncMeterOption + ",disable=clientjava-workqueue"), false),
        new Variant("none-polluted", "no agent, the JDK's collection profiles polluted first", Agent.NONE, List.of(), true));
  }

  /** The queue section: every variant, each row printed, the rows handed to the results. */
  void section(String resyncMeterOption) throws Exception {
    List<Results.QueueRow> rows = run(variants(resyncMeterOption));
    for (Results.QueueRow row : rows) {
      System.out.println(ConsoleLines.queueWave(row.key(), row.wallMillis().median(), row.cpuMillis().median()));
    }
    results.queueWave(settings.json(), rows);
  }

  /** Every variant once per round, in an order rotated by the round. */
  List<Results.QueueRow> run(List<Variant> variants) throws Exception {
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
    List<Results.QueueRow> rows = new ArrayList<>();
    for (Variant variant : variants) {
      rows.add(new Results.QueueRow(variant.key(), variant.title(), Stats.of(wall.get(variant)), Stats.of(cpu.get(variant))));
    }
    return rows;
  }

  /**
   * The agent of this run must have been on and counted the wave's items: every add the program made
   * (none without the workqueue part) and every reconcile, and no fault of its own. Anything else, a
   * count missing or different, fails the check and the section: a wave timed without the agent
   * counting it would be a number about nothing.
   */
  private void checkAgentCounts(Variant variant, ForkedJvm jvm, long items) throws Exception {
    String url = jvm.metricsUrl(Duration.ofSeconds(60));
    AgentCounts.Reading reading = AgentCounts.await(url, Scrape.awaitOk(url, 40), expectedCounts(variant.agent(), items));
    String name = "queue wave " + variant.key() + ": the agent counted every add and reconcile";
    results.check(name, reading.allMatch(), reading.text());
    if (!reading.allMatch()) {
      throw new IllegalStateException(name + ": it did not, " + reading.text() + "\n" + jvm.transcript());
    }
  }

  /** What the agent must have counted after a run whose program added and reconciled {@code items} keys. */
  static List<AgentCounts.Expected> expectedCounts(Agent agent, long items) {
    return List.of(
        new AgentCounts.Expected("workqueue_adds_total", agent == Agent.ALL_PARTS ? items : 0, "workqueue_adds_total"),
        new AgentCounts.Expected("controller_reconcile_total", items, "controller_reconcile_total"),
        new AgentCounts.Expected("resync_meter_errors_total", 0, "resync_meter_errors_total"));
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
      if (variant.agent() != Agent.NONE && expected >= 0) {
        checkAgentCounts(variant, jvm, expected);
      }
      int exit = jvm.closeInputAndWait(Duration.ofSeconds(60));
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
