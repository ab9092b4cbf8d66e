package dev.resyncmeter.bench;

import dev.resyncmeter.bench.PeerAgents.Config;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The depth section: the e2e program's client-java resync wave ({@link ResyncPipeline}: N no-op
 * updates through a {@code DefaultRateLimitingQueue} and a controller with two workers) at several
 * depths, without an agent and with resync-meter alternated in pairs, and the process CPU per item
 * resync-meter adds at each ({@link DepthTable}).
 *
 * <p>The CPU of a wave is {@link TaskCpu} (every Java thread's CPU, to the nanosecond) read by the
 * program at the resync tick that starts the wave, before its first no-op update, and at its last
 * reconcile. Not the process CPU of the e2e table: JDK 17 reads that in 10 ms ticks on Linux, which
 * quantised a 10,000-item wave's CPU per item to 1,000 ns steps. Per item: a run's median wave over
 * the objects.
 */
record DepthSection(Mode mode, PeerAgents peers, Results results) {

  /** One depth's sizes: objects, resync period and wave timeout, from which its runs' settings follow. */
  record Depth(int objects, long resyncMillis, long waveTimeoutSeconds) {}

  /**
   * Sizes of the section: the depths, the pairs per depth, the items each run processes to warm up,
   * and its measured waves.
   */
  record Settings(List<Depth> depths, int pairs, int warmupItems, int waves) {
    PipelineRuns.Settings runSettings(Depth depth) {
      return new PipelineRuns.Settings(depth.objects(), depth.resyncMillis(), warmupWaves(depth), waves, pairs, depth.waveTimeoutSeconds());
    }

    /**
     * The same warm-up in items at every depth, in whole waves: the JIT compiles after so many calls,
     * not waves, and two 10,000-item waves left both runs mid-warm-up (a run's CPU per item fell
     * threefold over its first ten waves there), which measured warm-up, not the agent's cost.
     */
    int warmupWaves(Depth depth) {
      return (warmupItems + depth.objects() - 1) / depth.objects();
    }
  }

  /** Above this many objects a run gets a 4 GiB heap: 500,000 ConfigMaps in the lister, the cache and the queue do not fit in 2. */
  static final int LARGE_HEAP_ABOVE = 150_000;

  static Settings settings(Mode mode) {
    // A wave longer than the resync period loses the rest of its notifications (see ResyncPipeline): on a
    // loaded 2-core machine a 100,000-object wave took more than 1 s, so the period grows with the depth.
    // The period adds idle time between waves, not CPU to a wave.
    Depth d10k = new Depth(10_000, 1_000, 60);
    Depth d100k = new Depth(100_000, 4_000, 120);
    return switch (mode) {
      case SMOKE -> new Settings(List.of(new Depth(1_000, 1_000, 60), new Depth(5_000, 1_000, 60)), 1, 0, 2);
      // 300,000 instead of 500,000: the deepest depth's four runs would take most of a quick run.
      case QUICK -> new Settings(List.of(d10k, d100k, new Depth(300_000, 10_000, 180)), 2, 100_000, 3);
      // 4 pairs: the 500,000 runs take about 90 s each, most of it waiting for ticks
      case FULL -> new Settings(List.of(d10k, d100k, new Depth(500_000, 10_000, 240)), 4, 200_000, 5);
    };
  }

  void run() throws Exception {
    Settings settings = settings(mode);
    List<DepthTable.Row> rows = new ArrayList<>();
    for (Depth depth : settings.depths()) {
      PipelineRuns runner = new PipelineRuns(settings.runSettings(depth), results);
      List<String> heap = depth.objects() > LARGE_HEAP_ABOVE ? List.of("-Xms4g", "-Xmx4g") : List.of();
      List<Double> none = new ArrayList<>();
      List<Double> with = new ArrayList<>();
      long start = System.nanoTime();
      for (int pair = 0; pair < settings.pairs(); pair++) {
        // Each pair's two runs side by side, taking turns to go first.
        List<Config> order = pair % 2 == 0 ? List.of(Config.NONE, Config.RESYNC_METER) : List.of(Config.RESYNC_METER, Config.NONE);
        for (Config config : order) {
          String name = "depth " + depth.objects() + " " + config.key + " pair " + (pair + 1);
          PipelineRuns.Run run = runner.run(peers.setup(config), heap, name, false);
          double nsPerItem = DepthTable.median(run.waves().stream().map(PipelineRuns.Wave::threadsCpuNanos).toList()) / depth.objects();
          (config == Config.NONE ? none : with).add(nsPerItem);
        }
      }
      DepthTable.Row row = new DepthTable.Row(depth.objects(), none, with);
      rows.add(row);
      System.out.println(DepthTable.consoleLine(row) + String.format(" [%.0f s]", (System.nanoTime() - start) / 1e9));
    }
    System.out.println("[bench]   " + DepthTable.flatnessLine(rows));
    results.depth(
        OrderedMap.of(
            "depths",
            settings.depths().stream()
                .map(d -> OrderedMap.of("objects", d.objects(), "resyncPeriodMillis", d.resyncMillis(), "warmupWaves", settings.warmupWaves(d)))
                .toList(),
            "pairs", settings.pairs(), "warmupItems", settings.warmupItems(), "measuredWaves", settings.waves(), "workers", 2,
            "heap", "-Xms2g -Xmx2g, -Xms4g -Xmx4g above " + LARGE_HEAP_ABOVE + " objects",
            "cpu", "CPU of every Java thread (ThreadMXBean, ns) from the resync tick to the wave's last reconcile, per item: each run's median wave"),
        rows);
  }

  /** What {@link Results#depth} hands to the reports, per row. */
  static Map<String, Object> json(DepthTable.Row row) {
    double[] interval = row.addedInterval();
    return OrderedMap.of(
        "objects", row.objects(), "noneCpuNsPerItem", row.noneNsPerItem(), "resyncMeterCpuNsPerItem", row.withNsPerItem(),
        "addedCpuNsPerItem", JsonReport.num(row.addedMedian()), "low", JsonReport.num(interval[0]), "high", JsonReport.num(interval[1]), "coverage", DepthTable.COVERAGE, "pairs", row.pairs());
  }
}
