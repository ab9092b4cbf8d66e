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
    // The fabric8 informer wave runs in the same rounds, after the client-java runs of each round, in
    // the same order of configurations; not with --only heap.
    PipelineRuns.Settings fabric8Settings = fabric8Settings(mode);
    PipelineRuns fabric8Runner = heapOnly ? null : new PipelineRuns(fabric8Settings, results, PipelineRuns.Program.FABRIC8);
    Map<Config, List<PipelineRuns.Run>> runs = Results.ordered();
    Map<Config, List<PipelineRuns.Run>> fabric8Runs = Results.ordered();
    for (int r = 0; r < Math.max(settings.runs(), heapOnly ? 0 : fabric8Settings.runs()); r++) {
      List<Config> round = roundOf(mode, r);
      for (Config config : r < settings.runs() ? round : List.<Config>of()) {
        String runName = "e2e " + config.key + " run " + (r + 1);
        PipelineRuns.Run run = runner.run(peers.setup(config), List.of(), runName);
        runs.computeIfAbsent(config, k -> new ArrayList<>()).add(run);
        System.out.println(ConsoleLines.e2eRun(runName, median(run.waves(), PipelineRuns.Wave::waveMillis), run.liveHeapBytes() / Results.MIB));
      }
      for (Config config : fabric8Runner != null && r < fabric8Settings.runs() ? round : List.<Config>of()) {
        String runName = "e2e fabric8 " + config.key + " run " + (r + 1);
        PipelineRuns.Run run = fabric8Runner.run(peers.setup(config), List.of(), runName, false);
        fabric8Runs.computeIfAbsent(config, k -> new ArrayList<>()).add(run);
        System.out.println(ConsoleLines.e2eRun(runName, median(run.waves(), PipelineRuns.Wave::waveMillis)));
      }
    }
    if (jfrDir != null) {
      recordJfr(runner);
    }
    if (!heapOnly) {
      e2e(settings, runs);
      fabric8(fabric8Settings, fabric8Runs);
    }
    heap(settings, runs);
  }

  /**
   * The configurations of round {@code r} ({@link #pipelineRound}); the smoke leaves the peers out: it
   * keeps the programs running with and without the agent, a peer's first list can take a minute on a
   * loaded machine (its own weaving), and its start-up is probed in the start-up section.
   */
  static List<Config> roundOf(Mode mode, int round) {
    return pipelineRound(round).stream().filter(config -> mode != Mode.SMOKE || !config.isPeer()).toList();
  }

  /** The e2e program's sizes; with {@code heapOnly} ({@code --only heap}) a single wave, only the heap reported. */
  static PipelineRuns.Settings settings(Mode mode, boolean heapOnly) {
    return switch (mode) {
      case SMOKE -> new PipelineRuns.Settings(2_000, 1_000, 0, 1, 1, 60);
      // Three rounds: the peers run in each, so that every table and ratio of a full run is there. Ten
      // warm-up waves: the 100,000 items the JIT needs here (with one, each run measured its warm-up).
      case QUICK -> heapOnly ? new PipelineRuns.Settings(10_000, 1_000, 0, 1, 1, 60) : new PipelineRuns.Settings(10_000, 1_000, 10, 3, PEER_PIPELINE_RUNS, 60);
      case FULL -> heapOnly ? new PipelineRuns.Settings(100_000, 2_000, 0, 1, 2, 120) : new PipelineRuns.Settings(100_000, 1_000, 3, 20, 10, 30);
    };
  }

  /**
   * The fabric8 informer wave's sizes ({@link Fabric8Wave}): fewer objects and rounds than the
   * client-java wave's, as fabric8 hands every notification to a pool thread of its own (25–35 µs an
   * object here, against about 2 µs in the client-java wave), so that the e2e section stays within minutes. Its
   * first rounds run the peers, as the client-java wave's.
   */
  static PipelineRuns.Settings fabric8Settings(Mode mode) {
    return switch (mode) {
      case SMOKE -> new PipelineRuns.Settings(2_000, 1_000, 0, 1, 1, 60);
      case QUICK -> new PipelineRuns.Settings(10_000, 1_000, 1, 3, PEER_PIPELINE_RUNS, 60);
      case FULL -> new PipelineRuns.Settings(20_000, 1_000, 3, 10, 6, 30);
    };
  }

  /**
   * The fabric8 wave's results: each configuration's run medians, and each configuration's waves over
   * no agent's pooled over the rounds it ran in (the peers' i-th run and no agent's share a round, as
   * in the client-java wave); printed as they are for the client-java wave.
   */
  private void fabric8(PipelineRuns.Settings settings, Map<Config, List<PipelineRuns.Run>> runs) {
    List<PipelineRuns.Run> without = runs.getOrDefault(Config.NONE, List.of());
    List<Results.E2eRow> rows = new ArrayList<>();
    Map<Config, PooledRatio> pooled = Results.ordered();
    runs.forEach(
        (config, list) -> {
          rows.add(e2eRow(config, list, false));
          if (config != Config.NONE) {
            PooledRatio ratio = PooledRatio.of(waves(list, PipelineRuns.Wave::waveMillis), waves(without, PipelineRuns.Wave::waveMillis), PooledRatio.Summary.MEDIAN);
            if (ratio != null) {
              pooled.put(config, ratio);
            }
          }
        });
    PooledRatio cpu =
        PooledRatio.of(
            waves(runs.getOrDefault(Config.RESYNC_METER, List.of()), PipelineRuns.Wave::processCpuMillis), waves(without, PipelineRuns.Wave::processCpuMillis),
            PooledRatio.Summary.MEAN);
    Map<String, Object> json = settings.json();
    json.remove("heap");
    json.put("wave", "from the resync tick (ProcessorStore.resync()) until all handler calls are done and every reconcile they queued finished");
    json.put("queue", "a LinkedBlockingQueue of namespace/name keys with a set of the keys waiting (a key queued once until a worker takes it)");
    json.put("informerExecutor", "a cached thread pool");
    json.put("peerRuns", PEER_PIPELINE_RUNS);
    results.fabric8Waves(new Results.Fabric8Waves(json, rows, pooled, cpu));
    pooled.forEach((config, ratio) -> System.out.println(ConsoleLines.waveRatio(PipelineRuns.Program.FABRIC8.wave, config.key, ratio)));
    inPeerRounds(PipelineRuns.Program.FABRIC8.wave, runs);
  }

  /**
   * resync-meter's waves over no agent's in the rounds the peers ran in, when they ran in fewer than
   * resync-meter: the figure to set beside theirs, since rounds differ by more than the agents do.
   */
  private void inPeerRounds(String wave, Map<Config, List<PipelineRuns.Run>> runs) {
    List<PipelineRuns.Run> with = runs.getOrDefault(Config.RESYNC_METER, List.of());
    List<PipelineRuns.Run> without = runs.getOrDefault(Config.NONE, List.of());
    int peerRounds = runs.entrySet().stream().filter(e -> e.getKey().isPeer()).mapToInt(e -> e.getValue().size()).max().orElse(0);
    if (peerRounds == 0 || peerRounds >= Math.min(with.size(), without.size())) {
      return;
    }
    PooledRatio ratio =
        PooledRatio.of(
            waves(with.subList(0, peerRounds), PipelineRuns.Wave::waveMillis), waves(without.subList(0, peerRounds), PipelineRuns.Wave::waveMillis),
            PooledRatio.Summary.MEDIAN);
    if (ratio != null) {
      results.inPeerRounds(wave, ratio);
      System.out.println(ConsoleLines.waveRatio(wave, Config.RESYNC_METER.key + " in the peers' rounds", ratio));
    }
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
    runs.forEach((config, list) -> rows.add(e2eRow(config, list, true)));
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
    inPeerRounds("client-java", runs);
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

  /** {@code withHeap}: the client-java wave's runs, each with its waves as they are and its live heap; else without either (the fabric8 wave has no listener CPU and no heap). */
  static Results.E2eRow e2eRow(Config config, List<PipelineRuns.Run> runs, boolean withHeap) {
    List<Map<String, Object>> runJson = new ArrayList<>();
    for (PipelineRuns.Run run : runs) {
      Map<String, Object> r = new LinkedHashMap<>();
      if (withHeap) {
        r.put("waves", run.waves());
      } else {
        r.put("waveMillis", run.waves().stream().map(PipelineRuns.Wave::waveMillis).toList());
        r.put("processCpuMillis", run.waves().stream().map(PipelineRuns.Wave::processCpuMillis).toList());
        r.put("threadsCpuNanos", run.waves().stream().map(PipelineRuns.Wave::threadsCpuNanos).toList());
      }
      r.put("counts", run.counts());
      if (withHeap) {
        r.put("liveHeapBytes", run.liveHeapBytes());
      }
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
