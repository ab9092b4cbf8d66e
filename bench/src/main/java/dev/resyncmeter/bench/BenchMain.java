package dev.resyncmeter.bench;

import dev.resyncmeter.bench.PeerAgents.Config;
import dev.resyncmeter.bench.Results.Stats;
import dev.resyncmeter.testkit.Jdks;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * {@code java -jar resync-meter-bench.jar [--smoke] [--agent JAR] [--only micro|e2e|queue|startup|soak|heap]
 * [--jfr] [--label NAME] [--results DIR] [--peer-agents DIR]}: runs the benchmarks, writes
 * {@code <results>/<yyyy-mm-dd-HHMM>[-label].json/.md} and {@code latest.json/.md}, and exits 1 when a
 * check failed (a program did not complete, exported counts differed). Targets missed never fail it.
 */
public final class BenchMain {

  static final String USAGE =
      "usage: bench/run [--smoke] [--agent JAR] [--only micro|e2e|queue|startup|soak|heap] [--jfr] [--label NAME] [--results DIR] [--peer-agents DIR]";

  /** The JMH benchmarks, their per-op description and their ns budget (30 ns per handler call and queue operation). */
  record Micro(String method, String perOp, double budgetNs) {}

  static final List<Micro> MICRO =
      List.of(
          new Micro("handlerNoopIdle", "1 handler call (resync no-op, dropped)", 30),
          new Micro("handlerChangedIdle", "1 handler call (watch change, dropped)", 30),
          new Micro("handlerNoopEnqueue", "1 handler call (resync no-op) + add, get, done", 120),
          new Micro("handlerChangedEnqueue", "1 handler call (watch change) + add, get, done", 120),
          new Micro("fabric8HandlerNoopIdle", "1 fabric8 delivery and handler call (resync no-op)", 30),
          new Micro("fabric8HandlerChangedIdle", "1 fabric8 delivery and handler call (watch change)", 30),
          new Micro("workQueueCycle", "1 queue operation (DefaultWorkQueue add/get/done ÷ 3)", 30),
          new Micro("rateLimitingQueueCycle", "1 queue operation (DefaultRateLimitingQueue add/get/done ÷ 3)", 30),
          new Micro("reconcile", "1 reconcile through DefaultController's reconciler, outside its queue", Double.NaN),
          new Micro("workerItem", "1 item a controller worker handles: add, get, reconcile, done", 120),
          // The reconcile's own timing (see `reconcile`) and one request's: two clock reads (its latency, as client-go), attribution, meters.
          new Micro("apiRequestInReconcile", "1 reconcile sending 1 API request (an ApiClient call, answered in process)", 300),
          // A write costs what a read does (above) and at most 300 ns more for its effect: the version sent and the one answered.
          new Micro("apiWriteInReconcile", "1 reconcile sending 1 update (an ApiClient call with its object, answered in process unchanged)", 600),
          // Not the agent's: what one clock read costs here, the floor of timing anything per item.
          new Micro("clockRead", "1 System.nanoTime() (no agent code: the JVM's clock)", Double.NaN));

  private final boolean smoke;
  private final PeerAgents peers;
  private final Results results;
  private final Path resultsDir;
  private final String name;
  private final boolean jfr;

  private BenchMain(boolean smoke, PeerAgents peers, Results results, Path resultsDir, String name, boolean jfr) {
    this.smoke = smoke;
    this.peers = peers;
    this.results = results;
    this.resultsDir = resultsDir;
    this.name = name;
    this.jfr = jfr;
  }

  public static void main(String[] args) throws Exception {
    Path target = Path.of(BenchMain.class.getProtectionDomain().getCodeSource().getLocation().toURI()).getParent();
    boolean smoke = false;
    boolean jfr = false;
    String only = null;
    String label = null;
    Path agent = target.resolve("resync-meter-agent.jar");
    Path resultsDir = target.resolve("../results");
    Path peerDir = target.resolve("peer-agents");
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--smoke" -> smoke = true;
        case "--jfr" -> jfr = true;
        case "--agent" -> agent = Path.of(value(args, ++i));
        case "--only" -> only = value(args, ++i);
        case "--label" -> label = value(args, ++i);
        case "--results" -> resultsDir = Path.of(value(args, ++i));
        case "--peer-agents" -> peerDir = Path.of(value(args, ++i));
        default -> usage("unknown option " + args[i]);
      }
    }
    if (only != null && !List.of("micro", "e2e", "queue", "startup", "soak", "heap").contains(only)) {
      usage("--only takes micro, e2e, queue, startup, soak or heap, not " + only);
    }
    if (label != null && !label.matches("[A-Za-z0-9._-]+")) {
      usage("--label takes letters, digits, '.', '_' and '-'");
    }
    LocalDateTime now = LocalDateTime.now();
    String name = now.format(DateTimeFormatter.ofPattern("yyyy-MM-dd-HHmm")) + (label == null ? "" : "-" + label);
    resultsDir = resultsDir.toAbsolutePath().normalize();
    PeerAgents peers = new PeerAgents(agent, peerDir, Files.createTempDirectory("resync-meter-bench"));
    Results results = new Results(meta(now, label, smoke, only, peers.agentJar(), args));
    BenchMain bench = new BenchMain(smoke, peers, results, resultsDir, name, jfr);

    List<String> sections = sections(only, smoke);
    for (String section : sections) {
      long start = System.nanoTime();
      System.out.println("[bench] " + section + " ...");
      try {
        switch (section) {
          case "micro" -> bench.micro();
          case "e2e" -> bench.pipeline(false);
          case "heap" -> bench.pipeline(true);
          case "queue" -> bench.queueWave();
          case "startup" -> bench.startup();
          case "soak" -> bench.soak();
          default -> throw new IllegalStateException(section);
        }
      } catch (Exception e) {
        // One section failing is reported with its cause; the others still run.
        String cause = e.toString();
        results.check(section + " completed", false, cause.length() > 1_500 ? cause.substring(0, 1_500) + " ... (the whole transcript is on stderr)" : cause);
        e.printStackTrace();
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      results.duration(section, Math.round(seconds * 10) / 10.0);
      System.out.printf("[bench] %s done in %.0f s%n", section, seconds);
    }
    Path json = results.write(resultsDir, name);
    System.out.println("[bench] results: " + json + " and " + resultsDir.resolve(name + ".md") + (results.passed() ? "" : " (CHECKS FAILED)"));
    System.exit(results.passed() ? 0 : 1);
  }

  private static String value(String[] args, int i) {
    if (i >= args.length) {
      usage(args[i - 1] + " needs a value");
    }
    return args[i];
  }

  private static void usage(String problem) {
    System.err.println(problem + "\n" + USAGE);
    System.exit(2);
  }

  // ---- micro -----------------------------------------------------------------------------------

  /**
   * Each benchmark runs in its own fork once without and once with the agent, alternating, so that
   * a noisy neighbour hurts both sides alike; a full run does two such rounds, the second in the
   * other order.
   */
  void micro() throws Exception {
    int rounds = smoke ? 1 : 2;
    int warmups = smoke ? 1 : 3;
    int iterations = smoke ? 1 : 5;
    TimeValue warmupTime = smoke ? TimeValue.milliseconds(200) : TimeValue.seconds(1);
    TimeValue iterationTime = smoke ? TimeValue.milliseconds(300) : TimeValue.seconds(1);
    Map<String, Map<Config, List<Double>>> nanos = new LinkedHashMap<>();
    Map<String, Map<Config, List<Double>>> bytes = new LinkedHashMap<>();
    for (int round = 0; round < rounds; round++) {
      for (Micro micro : MICRO) {
        for (Config config : round % 2 == 0 ? List.of(Config.NONE, Config.RESYNC_METER) : List.of(Config.RESYNC_METER, Config.NONE)) {
          ChainedOptionsBuilder options =
              new OptionsBuilder()
                  .include(MicroBenchmarks.class.getPackageName().replace(".", "\\.") + "\\.(MicroBenchmarks|Fabric8Benchmarks|ApiRequestBenchmarks)\\." + micro.method + "$")
                  .forks(1)
                  .warmupIterations(warmups)
                  .warmupTime(warmupTime)
                  .measurementIterations(iterations)
                  .measurementTime(iterationTime)
                  .timeUnit(TimeUnit.NANOSECONDS)
                  .addProfiler(GCProfiler.class)
                  .jvmArgs(
                      "-Xms1g", "-Xmx1g",
                      // The listener logs each end of its loop at error level: the benchmark ends it on purpose.
                      "-Dorg.slf4j.simpleLogger.log.io.kubernetes.client.informer.cache.ProcessorListener=off")
                  .verbosity(VerboseMode.SILENT)
                  .shouldFailOnError(true);
          if (config == Config.RESYNC_METER) {
            options.jvmArgsAppend(peers.resyncMeterOption(), "-D" + MicroBenchmarks.EXPECT_AGENT + "=true");
          }
          Collection<RunResult> runs = new Runner(options.build()).run();
          if (runs.isEmpty()) {
            throw new IllegalStateException("JMH returned no result for " + micro.method + " (" + config.key + ")");
          }
          for (RunResult run : runs) {
            for (BenchmarkResult benchmark : run.getBenchmarkResults()) {
              for (IterationResult iteration : benchmark.getIterationResults()) {
                nanos.computeIfAbsent(micro.method, k -> Results.ordered()).computeIfAbsent(config, k -> new ArrayList<>())
                    .add(iteration.getPrimaryResult().getScore());
                Result alloc = allocNorm(iteration.getSecondaryResults());
                if (alloc != null) {
                  bytes.computeIfAbsent(micro.method, k -> Results.ordered()).computeIfAbsent(config, k -> new ArrayList<>()).add(alloc.getScore());
                }
              }
            }
          }
          System.out.printf("[bench]   %s %s: %.1f ns/op%n", micro.method, config.key, median(nanos.get(micro.method).get(config)));
        }
      }
    }
    List<Results.MicroRow> rows = new ArrayList<>();
    for (Micro micro : MICRO) {
      Map<Config, Stats> ns = Results.ordered();
      Map<Config, Stats> b = Results.ordered();
      nanos.get(micro.method).forEach((config, samples) -> ns.put(config, Stats.of(samples)));
      Map<Config, List<Double>> allocations = bytes.getOrDefault(micro.method, Map.of());
      allocations.forEach((config, samples) -> b.put(config, Stats.of(samples)));
      rows.add(new Results.MicroRow(micro.method, micro.perOp, ns, b, micro.budgetNs));
      if (b.size() == 2) {
        results.check("micro " + micro.method + ": GC profiler reported B/op", true, "");
      } else {
        results.check("micro " + micro.method + ": GC profiler reported B/op", false, "no gc.alloc.rate.norm");
      }
    }
    Map<String, Object> settings = new LinkedHashMap<>();
    settings.put("jmh", "1.37, Runner API, avgt, forks 1 per round");
    settings.put("rounds", rounds);
    settings.put("warmup", warmups + " x " + warmupTime);
    settings.put("measurement", iterations + " x " + iterationTime);
    settings.put("handlerBatch", MicroBenchmarks.BATCH);
    settings.put("spread", "min-max of all measurement iterations");
    results.micro(settings, rows);
  }

  private static Result allocNorm(Map<String, Result> secondary) {
    for (Map.Entry<String, Result> entry : secondary.entrySet()) {
      if (entry.getKey().endsWith("gc.alloc.rate.norm")) {
        return entry.getValue();
      }
    }
    return null;
  }

  private static double median(List<Double> samples) {
    return Stats.of(samples).median();
  }

  // ---- e2e and heap ----------------------------------------------------------------------------

  /**
   * Runs the e2e program for every configuration, in rounds ({@link #pipelineRound}), and reports each
   * configuration's run medians and resync-meter's paired ratios to no agent. With {@code heapOnly} a
   * run has a single wave and only the heap is reported.
   */
  void pipeline(boolean heapOnly) throws Exception {
    PipelineRuns.Settings settings =
        smoke
            ? new PipelineRuns.Settings(2_000, 1_000, 0, 1, 1, 60)
            : heapOnly ? new PipelineRuns.Settings(100_000, 2_000, 0, 1, 2, 120) : new PipelineRuns.Settings(100_000, 1_000, 3, 20, 10, 30);
    PipelineRuns runner = new PipelineRuns(settings, results);
    Map<Config, List<PipelineRuns.Run>> runs = Results.ordered();
    for (int r = 0; r < settings.runs(); r++) {
      for (Config config : pipelineRound(r)) {
        if (smoke && config != Config.NONE && config != Config.RESYNC_METER) {
          // The smoke keeps the program running with and without the agent; a peer's first list can
          // take a minute on a loaded machine (its own weaving), and its start-up is probed below.
          continue;
        }
        String runName = "e2e " + config.key + " run " + (r + 1);
        PipelineRuns.Run run = runner.run(peers.setup(config), List.of(), runName);
        runs.computeIfAbsent(config, k -> new ArrayList<>()).add(run);
        System.out.printf(
            "[bench]   %s: wave %.0f ms, heap %.1f MiB%n",
            runName, median(run.waves().stream().map(PipelineRuns.Wave::waveMillis).toList()), run.liveHeapBytes() / Results.MIB);
      }
    }
    if (jfr) {
      // Extra runs, not in the statistics (the recording costs time of its own): without the agent and
      // with it, one after the other, so that a profile of the difference compares like with like.
      Files.createDirectories(resultsDir);
      for (Config config : List.of(Config.NONE, Config.RESYNC_METER)) {
        Path file = PipelineRuns.jfrFile(resultsDir, name, config);
        runner.run(peers.setup(config), List.of("-XX:StartFlightRecording=filename=" + file + ",settings=profile,dumponexit=true"), "e2e jfr run " + config.key);
        results.check("JFR recording of the " + config.key + " e2e run written", Files.isRegularFile(file), file.toString());
      }
    }
    if (!heapOnly) {
      List<Results.E2eRow> rows = new ArrayList<>();
      runs.forEach((config, list) -> rows.add(e2eRow(config, list)));
      Map<String, Object> json = settings.json();
      json.put("wave", "from DeltaFIFO.resync() until all handler calls are done and every reconcile they queued finished");
      json.put("peerRuns", PEER_PIPELINE_RUNS);
      results.e2e(json, rows);
      List<PipelineRuns.Run> with = runs.getOrDefault(Config.RESYNC_METER, List.of());
      List<PipelineRuns.Run> without = runs.getOrDefault(Config.NONE, List.of());
      if (!with.isEmpty() && !without.isEmpty()) {
        results.e2ePairs(pairedRatios(with, without, PipelineRuns.Wave::waveMillis), pairedRatios(with, without, PipelineRuns.Wave::processCpuMillis));
        results.e2ePooled(
            PooledRatio.of(waves(with, PipelineRuns.Wave::waveMillis), waves(without, PipelineRuns.Wave::waveMillis), PooledRatio.Summary.MEDIAN),
            PooledRatio.of(waves(with, PipelineRuns.Wave::processCpuMillis), waves(without, PipelineRuns.Wave::processCpuMillis), PooledRatio.Summary.MEAN));
        // The peers ran in the first rounds only: their i-th run and no agent's i-th run share a round.
        Map<Config, PooledRatio> peers = Results.ordered();
        runs.forEach(
            (config, list) -> {
              if (config.isPeer()) {
                peers.put(config, PooledRatio.of(waves(list, PipelineRuns.Wave::waveMillis), waves(without, PipelineRuns.Wave::waveMillis), PooledRatio.Summary.MEDIAN));
              }
            });
        results.e2ePeersPooled(peers);
      }
    }
    Map<Config, Stats> heap = Results.ordered();
    runs.forEach((config, list) -> heap.put(config, Stats.of(list.stream().map(run -> (double) run.liveHeapBytes()).toList())));
    PipelineRuns.Run agent = runs.getOrDefault(Config.RESYNC_METER, List.of()).stream().findFirst().orElse(null);
    PipelineRuns.Run none = runs.getOrDefault(Config.NONE, List.of()).stream().findFirst().orElse(null);
    List<HeapProbe.ClassRow> own = agent == null ? List.of() : agent.ownClasses();
    results.heap(heap, settings.objects(), own.subList(0, Math.min(10, own.size())), agent == null || none == null ? List.of() : heapGrowth(none, agent));
  }

  /** Rounds in which the peers run too; the other rounds run only no agent and resync-meter, the pair the wave's ratio is about. */
  static final int PEER_PIPELINE_RUNS = 3;

  /**
   * The configurations of one round of e2e runs: all four, starting at a different one each round, in
   * the first {@link #PEER_PIPELINE_RUNS} rounds; then no agent and resync-meter, taking turns to go
   * first. Each round's two runs of that pair ran side by side on the machine, so their ratio is the
   * figure least moved by what else the machine did.
   */
  static List<Config> pipelineRound(int round) {
    if (round < PEER_PIPELINE_RUNS) {
      return rotated(round);
    }
    return round % 2 == 0 ? List.of(Config.NONE, Config.RESYNC_METER) : List.of(Config.RESYNC_METER, Config.NONE);
  }

  /** Per round, resync-meter's run median over the no-agent run median of the same round. */
  static Stats pairedRatios(List<PipelineRuns.Run> with, List<PipelineRuns.Run> without, Function<PipelineRuns.Wave, Double> metric) {
    List<Double> ratios = new ArrayList<>();
    for (int round = 0; round < Math.min(with.size(), without.size()); round++) {
      ratios.add(median(with.get(round).waves().stream().map(metric).toList()) / median(without.get(round).waves().stream().map(metric).toList()));
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
    return Stats.of(runs.stream().map(run -> median(run.waves().stream().map(metric).toList())).toList());
  }

  // ---- start-up --------------------------------------------------------------------------------

  /** The sections a run goes through: {@code only}, else all but the heap alone (e2e measures it), and no soak in a smoke run. */
  static List<String> sections(String only, boolean smoke) {
    return only != null ? List.of(only) : smoke ? List.of("micro", "e2e", "queue", "startup") : List.of("micro", "e2e", "queue", "startup", "soak");
  }

  /**
   * The queue half of the wave alone ({@link QueueWave}): no agent, resync-meter, resync-meter
   * without its workqueue part, and no agent with the JDK's collection profiles polluted, alternated.
   */
  void queueWave() throws Exception {
    QueueWaveRuns.Settings settings = smoke ? new QueueWaveRuns.Settings(20_000, 1, 3, 1) : new QueueWaveRuns.Settings(100_000, 3, 10, 8);
    List<QueueWaveRuns.Row> rows = new QueueWaveRuns(settings, results).run(QueueWaveRuns.variants(peers.resyncMeterOption()));
    for (QueueWaveRuns.Row row : rows) {
      System.out.printf("[bench]   queue wave, %s: median %.0f ms, CPU %.0f ms%n", row.variant().key(), row.wallMillis().median(), row.cpuMillis().median());
    }
    results.queueWave(settings.json(), rows);
  }

  /** The JDKs the start-up probes run on, each by its feature version. */
  static final List<Integer> STARTUP_JDKS = List.of(17, 25);
  /** A start with no first reconcile by then hung: far beyond any start, even beside the OpenTelemetry agent on a loaded machine. */
  static final Duration HUNG_AFTER = Duration.ofSeconds(90);

  /**
   * Both probes for every configuration, configurations alternating within each repetition: {@code java
   * -version} on this JVM, the first reconcile on each of {@link #STARTUP_JDKS} found here. A first
   * reconcile that never comes, or a warning of resync-meter's or the JVM's in a resync-meter start,
   * fails the section's checks.
   */
  void startup() throws Exception {
    int versionReps = smoke ? 1 : 10;
    int reconcileReps = smoke ? 1 : 10;
    Map<String, Map<Config, List<Double>>> samples = new LinkedHashMap<>();
    Map<Config, List<Double>> version = Results.ordered();
    for (int i = 0; i < versionReps; i++) {
      for (Config config : rotated(i)) {
        version.computeIfAbsent(config, k -> new ArrayList<>()).add(StartupProbe.javaVersionNanos(peers.setup(config).options()) / 1e6);
      }
    }
    samples.put("java -version", version);
    List<String> warnings = new ArrayList<>();
    // A smoke run checks that the probe runs, on this JVM's JDK; only a full run measures both.
    Map<Integer, Path> jdks = smoke ? Map.of(Runtime.version().feature(), Path.of(System.getProperty("java.home"))) : startupJdks("start-up probe");
    for (Map.Entry<Integer, Path> jdk : jdks.entrySet()) {
      int feature = jdk.getKey();
      Path home = jdk.getValue();
      Map<Config, List<Double>> reconcile = Results.ordered();
      for (int i = 0; i < reconcileReps; i++) {
        for (Config config : rotated(i)) {
          StartupProbe.Start start = StartupProbe.firstReconcile(home, probeOptions(peers.setup(config).options()), HUNG_AFTER);
          if (start.hung()) {
            throw new IllegalStateException("no first reconcile within " + HUNG_AFTER + " on Java " + feature + " with " + config.key + "\n" + start.transcript());
          }
          if (config == Config.RESYNC_METER) {
            warnings.addAll(start.warnings());
          }
          reconcile.computeIfAbsent(config, k -> new ArrayList<>()).add(start.millis());
        }
      }
      samples.put(firstReconcileProbe(feature), reconcile);
    }
    Map<String, Map<Config, Stats>> probes = new LinkedHashMap<>();
    for (Map.Entry<String, Map<Config, List<Double>>> probe : samples.entrySet()) {
      Map<Config, Stats> stats = Results.ordered();
      probe.getValue().forEach((config, values) -> stats.put(config, Stats.of(values)));
      probes.put(probe.getKey(), stats);
      for (Config config : Config.values()) {
        System.out.printf("[bench]   start-up %s, %s: median %.0f ms%n", probe.getKey(), config.key, stats.get(config).median());
      }
    }
    results.check("start-up probes completed", true, versionReps + " x java -version, " + reconcileReps + " x first reconcile per configuration and JDK");
    results.check("no resync-meter start printed a warning", warnings.isEmpty(), warnings.isEmpty() ? "" : String.join("\n", warnings));
    results.startup(probes);
  }

  /** The homes of the {@link #STARTUP_JDKS} found here, by feature version; says which are missing, for {@code what}. */
  private static Map<Integer, Path> startupJdks(String what) {
    Map<Integer, Path> homes = new LinkedHashMap<>();
    for (int feature : STARTUP_JDKS) {
      Path home = Jdks.find(feature);
      if (home == null) {
        System.out.printf("[bench]   no JDK %d (set JAVA%d_HOME): no %s on Java %d%n", feature, feature, what, feature);
      } else {
        homes.put(feature, home);
      }
    }
    return homes;
  }

  static String firstReconcileProbe(int feature) {
    return "first reconcile (Java " + feature + ")";
  }

  /** The probe's options: its own logging quiet, then the configuration's (agents in their order). */
  private static List<String> probeOptions(List<String> agentOptions) {
    List<String> options = new ArrayList<>(List.of("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"));
    options.addAll(agentOptions);
    return options;
  }

  /**
   * Many starts of resync-meter alone and beside the OpenTelemetry agent, loaded before and after it,
   * on each JDK, the three alternating: counts the starts that hung (no first reconcile within {@link
   * #HUNG_AFTER}) and those that printed a warning the OpenTelemetry agent does not print alone. Not
   * part of a smoke run.
   */
  void soak() throws Exception {
    int reps = smoke ? 1 : 10;
    List<Results.SoakRow> rows = new ArrayList<>();
    List<String> found = new ArrayList<>();
    for (Map.Entry<Integer, Path> jdk : startupJdks("soak").entrySet()) {
      int feature = jdk.getKey();
      Path home = jdk.getValue();
      List<String> otel = peers.setup(Config.OPENTELEMETRY).options();
      // What the OpenTelemetry agent makes the JVM print by itself (appending to the boot class path,
      // it has the JVM warn that class sharing is limited) is not resync-meter's.
      List<String> otelsOwn = StartupProbe.firstReconcile(home, probeOptions(otel), HUNG_AFTER).warnings();
      Map<String, List<String>> orders = new LinkedHashMap<>();
      orders.put("alone", List.of(peers.resyncMeterOption()));
      orders.put("after OpenTelemetry", concat(otel, List.of(peers.resyncMeterOption())));
      orders.put("before OpenTelemetry", concat(List.of(peers.resyncMeterOption()), otel));
      Map<String, List<StartupProbe.Start>> starts = new LinkedHashMap<>();
      List<String> names = new ArrayList<>(orders.keySet());
      for (int i = 0; i < reps; i++) {
        for (int j = 0; j < names.size(); j++) {
          String order = names.get((i + j) % names.size());
          StartupProbe.Start start = StartupProbe.firstReconcile(home, probeOptions(orders.get(order)), HUNG_AFTER).without(otelsOwn);
          starts.computeIfAbsent(order, k -> new ArrayList<>()).add(start);
          if (start.hung() || start.warned()) {
            found.add("Java " + feature + ", " + order + (start.hung() ? ": hung\n" + start.transcript() : ": " + start.warnings()));
          }
        }
      }
      for (String order : names) {
        List<StartupProbe.Start> runs = starts.get(order);
        List<Double> millis = runs.stream().filter(r -> !r.hung()).map(StartupProbe.Start::millis).toList();
        rows.add(
            new Results.SoakRow(
                feature, order, runs.size(), (int) runs.stream().filter(StartupProbe.Start::hung).count(),
                (int) runs.stream().filter(StartupProbe.Start::warned).count(), Stats.of(millis)));
      }
    }
    for (Results.SoakRow row : rows) {
      System.out.printf("[bench]   soak Java %d, resync-meter %s: %d starts, %d hung, %d warned%n", row.java(), row.order(), row.starts(), row.hung(), row.warned());
    }
    results.check("start-up soak: no start hung or printed a warning", found.isEmpty(), found.isEmpty() ? rows.stream().mapToInt(Results.SoakRow::starts).sum() + " starts" : String.join("\n", found));
    results.soak(rows);
  }

  private static List<String> concat(List<String> first, List<String> second) {
    List<String> all = new ArrayList<>(first);
    all.addAll(second);
    return all;
  }

  /** Every configuration, starting at a different one each repetition: no configuration always runs first. */
  static List<Config> rotated(int repetition) {
    Config[] all = Config.values();
    List<Config> order = new ArrayList<>();
    for (int i = 0; i < all.length; i++) {
      order.add(all[(i + repetition) % all.length]);
    }
    return order;
  }

  // ---- what ran where --------------------------------------------------------------------------

  private static Map<String, Object> meta(LocalDateTime now, String label, boolean smoke, String only, Path agentJar, String[] args)
      throws Exception {
    Map<String, Object> meta = new LinkedHashMap<>();
    meta.put("date", now.format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm")));
    meta.put("label", label);
    meta.put("mode", smoke ? "smoke" : "full");
    List<String> sections = new ArrayList<>(sections(only, smoke));
    if (only == null) {
      sections.add("heap"); // measured in the e2e runs
    }
    meta.put("sections", sections);
    Map<String, Object> machine = new LinkedHashMap<>();
    machine.put("cores", Runtime.getRuntime().availableProcessors());
    long memory = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getTotalMemorySize();
    machine.put("memoryGiB", Math.round(memory / (1024.0 * 1024 * 1024) * 10) / 10.0);
    machine.put("cpu", cpuModel());
    meta.put("machine", machine);
    Map<String, Object> jvm = new LinkedHashMap<>();
    jvm.put("version", System.getProperty("java.runtime.version"));
    jvm.put("vendor", System.getProperty("java.vendor"));
    jvm.put("vm", System.getProperty("java.vm.name"));
    jvm.put("home", System.getProperty("java.home"));
    meta.put("jvm", jvm);
    Map<String, Object> agent = new LinkedHashMap<>();
    agent.put("path", agentJar.toString());
    agent.put("bytes", Files.size(agentJar));
    agent.put("sha256", HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(agentJar))));
    meta.put("agentJar", agent);
    meta.put("command", "bench/run " + String.join(" ", args));
    return meta;
  }

  private static String cpuModel() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (line.startsWith("model name")) {
          return line.substring(line.indexOf(':') + 1).trim();
        }
      }
    } catch (IOException ignored) {
      // not Linux
    }
    return System.getProperty("os.arch");
  }
}
