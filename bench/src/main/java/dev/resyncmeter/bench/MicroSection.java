package dev.resyncmeter.bench;

import dev.resyncmeter.bench.PeerAgents.Config;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
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
 * The micro section: each JMH benchmark in its own fork once without and once with the agent,
 * alternating, so that a noisy neighbour hurts both sides alike; a full run does two such rounds,
 * the second in the other order.
 */
record MicroSection(Sizes sizes, PeerAgents peers, Results results) {

  /** The JMH benchmarks, their per-op description and their ns budget (30 ns per handler call and queue operation). */
  record Micro(String method, String perOp, double budgetNs) {}

  /** Rounds, and each fork's warm-up and measurement iterations. */
  record Sizes(int rounds, int warmups, TimeValue warmupTime, int iterations, TimeValue iterationTime) {}

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
          // A write that changes its object is kept as the object's last own write (what its echo carries): at most 300 ns more again.
          new Micro("apiChangingWriteInReconcile", "1 reconcile sending 1 update that changes its object (answered in process)", 900),
          // Not the agent's: what one clock read costs here, the floor of timing anything per item.
          new Micro("clockRead", "1 System.nanoTime() (no agent code: the JVM's clock)", Double.NaN));

  void run() throws Exception {
    Map<String, Map<Config, List<Double>>> nanos = new LinkedHashMap<>();
    Map<String, Map<Config, List<Double>>> bytes = new LinkedHashMap<>();
    for (int round = 0; round < sizes.rounds(); round++) {
      for (Micro micro : MICRO) {
        for (Config config : round % 2 == 0 ? List.of(Config.NONE, Config.RESYNC_METER) : List.of(Config.RESYNC_METER, Config.NONE)) {
          Collection<RunResult> runs = new Runner(options(micro, config).build()).run();
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
          System.out.println(ConsoleLines.microRun(micro.method, config.key, Stats.of(nanos.get(micro.method).get(config)).median()));
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
      results.check("micro " + micro.method + ": GC profiler reported B/op", b.size() == 2, b.size() == 2 ? "" : "no gc.alloc.rate.norm");
    }
    Map<String, Object> settings =
        OrderedMap.of(
            "jmh", "1.37, Runner API, avgt, forks 1 per round", "rounds", sizes.rounds(), "warmup", sizes.warmups() + " x " + sizes.warmupTime(),
            "measurement", sizes.iterations() + " x " + sizes.iterationTime(), "handlerBatch", MicroBenchmarks.BATCH,
            "spread", "min-max of all measurement iterations");
    results.micro(settings, rows);
  }

  static Sizes sizes(Mode mode) {
    return switch (mode) {
      case SMOKE -> new Sizes(1, 1, TimeValue.milliseconds(200), 1, TimeValue.milliseconds(300));
      case QUICK -> new Sizes(1, 1, TimeValue.milliseconds(300), 2, TimeValue.milliseconds(300));
      case FULL -> new Sizes(2, 3, TimeValue.seconds(1), 5, TimeValue.seconds(1));
    };
  }

  private ChainedOptionsBuilder options(Micro micro, Config config) {
    ChainedOptionsBuilder options =
        new OptionsBuilder()
            .include(MicroBenchmarks.class.getPackageName().replace(".", "\\.") + "\\.(MicroBenchmarks|Fabric8Benchmarks|ApiRequestBenchmarks)\\." + micro.method + "$")
            .forks(1)
            .warmupIterations(sizes.warmups())
            .warmupTime(sizes.warmupTime())
            .measurementIterations(sizes.iterations())
            .measurementTime(sizes.iterationTime())
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
    return options;
  }

  private static Result allocNorm(Map<String, Result> secondary) {
    for (Map.Entry<String, Result> entry : secondary.entrySet()) {
      if (entry.getKey().endsWith("gc.alloc.rate.norm")) {
        return entry.getValue();
      }
    }
    return null;
  }
}
