package dev.resyncmeter.bench;

import dev.resyncmeter.bench.PeerAgents.Config;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The e2e and heap sections: the e2e program ({@link PipelineRuns}) for every configuration, in rounds
 * ({@link #pipelineRound}), each configuration's run medians, resync-meter's ratios to no agent, and
 * the live heap at the end of each run. {@code jfrDir}: where a JFR recording of the run {@code name}
 * goes, null without {@code --jfr}.
 */
record PipelineSection(Mode mode, PeerAgents peers, Results results, Path jfrDir, String name) {

  /** Rounds in which the peers run too; the other rounds run only no agent and resync-meter, the pair the wave's ratio is about. */
  static final int PEER_PIPELINE_RUNS = 3;

  /**
   * Runs the e2e program for every configuration and reports each configuration's run medians and
   * resync-meter's paired ratios to no agent. With {@code heapOnly} a run has a single wave and only
   * the heap is reported.
   */
  void run(boolean heapOnly) throws Exception {
    PipelineRuns.Settings settings = settings(mode, heapOnly);
    PipelineRuns runner = new PipelineRuns(settings, results);
    Map<Config, List<PipelineRuns.Run>> runs = Results.ordered();
    for (int r = 0; r < settings.runs(); r++) {
      for (Config config : pipelineRound(r)) {
        if (mode == Mode.SMOKE && config.isPeer()) {
          // The smoke keeps the program running with and without the agent; a peer's first list can
          // take a minute on a loaded machine (its own weaving), and its start-up is probed below.
          continue;
        }
        String runName = "e2e " + config.key + " run " + (r + 1);
        PipelineRuns.Run run = runner.run(peers.setup(config), List.of(), runName);
        runs.computeIfAbsent(config, k -> new ArrayList<>()).add(run);
        System.out.println(ConsoleLines.e2eRun(runName, median(run.waves(), PipelineRuns.Wave::waveMillis), run.liveHeapBytes() / Results.MIB));
      }
    }
    if (jfrDir != null) {
      recordJfr(runner);
    }
    if (!heapOnly) {
      e2e(settings, runs);
    }
    heap(settings, runs);
  }

  /** The e2e program's sizes; with {@code heapOnly} ({@code --only heap}) a single wave, only the heap reported. */
  static PipelineRuns.Settings settings(Mode mode, boolean heapOnly) {
    return switch (mode) {
      case SMOKE -> new PipelineRuns.Settings(2_000, 1_000, 0, 1, 1, 60);
      // Three rounds: the peers run in each, so that every table and ratio of a full run is there.
      case QUICK -> heapOnly ? new PipelineRuns.Settings(10_000, 1_000, 0, 1, 1, 60) : new PipelineRuns.Settings(10_000, 1_000, 1, 3, PEER_PIPELINE_RUNS, 60);
      case FULL -> heapOnly ? new PipelineRuns.Settings(100_000, 2_000, 0, 1, 2, 120) : new PipelineRuns.Settings(100_000, 1_000, 3, 20, 10, 30);
    };
  }

  /**
   * Extra runs, not in the statistics (the recording costs time of its own): without the agent and
   * with it, one after the other, so that a profile of the difference compares like with like.
   */
  private void recordJfr(PipelineRuns runner) throws Exception {
    Files.createDirectories(jfrDir);
    for (Config config : List.of(Config.NONE, Config.RESYNC_METER)) {
      Path file = PipelineRuns.jfrFile(jfrDir, name, config);
      runner.run(peers.setup(config), List.of("-XX:StartFlightRecording=filename=" + file + ",settings=profile,dumponexit=true"), "e2e jfr run " + config.key);
      results.check("JFR recording of the " + config.key + " e2e run written", Files.isRegularFile(file), file.toString());
    }
  }

  private void e2e(PipelineRuns.Settings settings, Map<Config, List<PipelineRuns.Run>> runs) {
    List<Results.E2eRow> rows = new ArrayList<>();
    runs.forEach((config, list) -> rows.add(e2eRow(config, list)));
    Map<String, Object> json = settings.json();
    json.put("wave", "from DeltaFIFO.resync() until all handler calls are done and every reconcile they queued finished");
    json.put("peerRuns", PEER_PIPELINE_RUNS);
    results.e2e(json, rows);
    List<PipelineRuns.Run> with = runs.getOrDefault(Config.RESYNC_METER, List.of());
    List<PipelineRuns.Run> without = runs.getOrDefault(Config.NONE, List.of());
    if (with.isEmpty() || without.isEmpty()) {
      return;
    }
    results.e2ePairs(pairedRatios(with, without, PipelineRuns.Wave::waveMillis), pairedRatios(with, without, PipelineRuns.Wave::processCpuMillis));
    results.e2ePooled(
        PooledRatio.of(waves(with, PipelineRuns.Wave::waveMillis), waves(without, PipelineRuns.Wave::waveMillis), PooledRatio.Summary.MEDIAN),
        PooledRatio.of(waves(with, PipelineRuns.Wave::processCpuMillis), waves(without, PipelineRuns.Wave::processCpuMillis), PooledRatio.Summary.MEAN));
    // The peers ran in the first rounds only: their i-th run and no agent's i-th run share a round.
    Map<Config, PooledRatio> pooledPeers = Results.ordered();
    runs.forEach(
        (config, list) -> {
          if (config.isPeer()) {
            pooledPeers.put(config, PooledRatio.of(waves(list, PipelineRuns.Wave::waveMillis), waves(without, PipelineRuns.Wave::waveMillis), PooledRatio.Summary.MEDIAN));
          }
        });
    results.e2ePeersPooled(pooledPeers);
    System.out.println(ConsoleLines.waveRatio("client-java", Config.RESYNC_METER.key, results.pooledWave()));
    pooledPeers.forEach((config, ratio) -> System.out.println(ConsoleLines.waveRatio("client-java", config.key, ratio)));
  }

  private void heap(PipelineRuns.Settings settings, Map<Config, List<PipelineRuns.Run>> runs) {
    Map<Config, Stats> heap = Results.ordered();
    runs.forEach((config, list) -> heap.put(config, Stats.of(list.stream().map(run -> (double) run.liveHeapBytes()).toList())));
    PipelineRuns.Run agent = runs.getOrDefault(Config.RESYNC_METER, List.of()).stream().findFirst().orElse(null);
    PipelineRuns.Run none = runs.getOrDefault(Config.NONE, List.of()).stream().findFirst().orElse(null);
    List<HeapProbe.ClassRow> own = agent == null ? List.of() : agent.ownClasses();
    results.heap(heap, settings.objects(), own.subList(0, Math.min(10, own.size())), agent == null || none == null ? List.of() : heapGrowth(none, agent));
  }

  /**
   * The configurations of one round of e2e runs: all four, starting at a different one each round, in
   * the first {@link #PEER_PIPELINE_RUNS} rounds; then no agent and resync-meter, taking turns to go
   * first. Each round's two runs of that pair ran side by side on the machine, so their ratio is the
   * figure least moved by what else the machine did.
   */
  static List<Config> pipelineRound(int round) {
    if (round < PEER_PIPELINE_RUNS) {
      return PeerAgents.rotated(round);
    }
    return round % 2 == 0 ? List.of(Config.NONE, Config.RESYNC_METER) : List.of(Config.RESYNC_METER, Config.NONE);
  }

  /** Per round, resync-meter's run median over the no-agent run median of the same round. */
  static Stats pairedRatios(List<PipelineRuns.Run> with, List<PipelineRuns.Run> without, Function<PipelineRuns.Wave, Double> metric) {
    List<Double> ratios = new ArrayList<>();
    for (int round = 0; round < Math.min(with.size(), without.size()); round++) {
      ratios.add(median(with.get(round).waves(), metric) / median(without.get(round).waves(), metric));
    }
    return Stats.of(ratios);
  }

  /** Each run's measured waves, one array per run, in round order. */
  static List<double[]> waves(List<PipelineRuns.Run> runs, Function<PipelineRuns.Wave, Double> metric) {
    return runs.stream().map(run -> run.waves().stream().mapToDouble(metric::apply).toArray()).toList();
  }

  /**
   * The classes whose live bytes grew most from the no-agent run to the resync-meter run: where the
   * agent's heap is, since most of it is JDK collections rather than classes of its own. Only rows of
   * at least {@link HeapProbe#REPORTED_ROW_BYTES} are compared.
   */
  static List<Results.HeapGrowth> heapGrowth(PipelineRuns.Run none, PipelineRuns.Run agent) {
    List<Results.HeapGrowth> growth = new ArrayList<>();
    agent.largeRows().forEach(
        (name, row) -> {
          HeapProbe.ClassRow before = none.largeRows().get(name);
          long bytes = before == null ? 0 : before.bytes();
          long instances = before == null ? 0 : before.instances();
          if (row.bytes() > bytes) {
            growth.add(new Results.HeapGrowth(name, row.bytes() - bytes, row.instances() - instances, bytes, row.bytes()));
          }
        });
    growth.sort((a, b) -> Long.compare(b.addedBytes(), a.addedBytes()));
    return List.copyOf(growth.subList(0, Math.min(10, growth.size())));
  }

  private static Results.E2eRow e2eRow(Config config, List<PipelineRuns.Run> runs) {
    List<Map<String, Object>> runJson = new ArrayList<>();
    for (PipelineRuns.Run run : runs) {
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("waves", run.waves());
      r.put("counts", run.counts());
      r.put("liveHeapBytes", run.liveHeapBytes());
      runJson.add(r);
    }
    return new Results.E2eRow(
        config,
        runMedians(runs, PipelineRuns.Wave::waveMillis),
        runMedians(runs, PipelineRuns.Wave::handlerCallsPerSecond),
        runMedians(runs, PipelineRuns.Wave::reconcilesPerSecond),
        runMedians(runs, PipelineRuns.Wave::listenerCpuNanosPerCall),
        runMedians(runs, PipelineRuns.Wave::processCpuMillis),
        runJson);
  }

  /** The statistic over runs of each run's median wave. */
  private static Stats runMedians(List<PipelineRuns.Run> runs, Function<PipelineRuns.Wave, Double> metric) {
    return Stats.of(runs.stream().map(run -> median(run.waves(), metric)).toList());
  }

  private static double median(List<PipelineRuns.Wave> waves, Function<PipelineRuns.Wave, Double> metric) {
    return Stats.of(waves.stream().map(metric).toList()).median();
  }
}
