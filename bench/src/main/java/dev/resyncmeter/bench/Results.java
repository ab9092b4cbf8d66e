package dev.resyncmeter.bench;

import com.google.gson.GsonBuilder;
import dev.resyncmeter.bench.PeerAgents.Config;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What one benchmark invocation measured, and its two renderings: a JSON file (plain maps and lists
 * through Gson) and a Markdown report with one table per benchmark and the targets met or missed.
 */
public final class Results {

  static final double NS_PER_CALL_BUDGET = 30;
  /** The wave with resync-meter over the wave without, paired by round (issue 30: within 5 %). */
  static final double WAVE_RATIO_BUDGET = 1.05;
  /** What resync-meter may add to a start, on 2 cores, on each JDK. */
  static final double STARTUP_BUDGET_MS = 150;
  static final double HEAP_BUDGET_MIB = 16;
  static final double MIB = 1024.0 * 1024.0;

  /** Median and range of samples. */
  public record Stats(double median, double min, double max, List<Double> samples) {
    static Stats of(List<Double> samples) {
      if (samples.isEmpty()) {
        return new Stats(Double.NaN, Double.NaN, Double.NaN, List.of());
      }
      List<Double> sorted = new ArrayList<>(samples);
      sorted.sort(Double::compare);
      int n = sorted.size();
      double median = n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
      return new Stats(median, sorted.get(0), sorted.get(n - 1), List.copyOf(samples));
    }

    /**
     * A distribution-free interval for the median of what the samples are drawn from, of at least 90 %
     * coverage: the k-th smallest and k-th largest sample for the largest k whose binomial tail
     * P(Bin(n, 1/2) < k) is at most 5 %. Null below five samples, where no such interval exists.
     * Returns low, high and the interval's exact coverage.
     */
    double[] medianInterval() {
      int n = samples.size();
      double tail = 0;
      double term = Math.pow(0.5, n); // P(Bin(n, 1/2) = 0)
      int k = 0;
      while (tail + term <= 0.05) {
        tail += term;
        term = term * (n - k) / (k + 1);
        k++;
      }
      if (k == 0) {
        return null;
      }
      List<Double> sorted = new ArrayList<>(samples);
      sorted.sort(Double::compare);
      return new double[] {sorted.get(k - 1), sorted.get(n - k), 1 - 2 * tail};
    }

    /** The interval in words: "93 % interval of the median 0.91–1.26", or nothing when there is none. */
    String medianIntervalText() {
      double[] interval = medianInterval();
      return interval == null ? "" : Math.round(interval[2] * 100) + " % interval of the median " + fmt(interval[0]) + "–" + fmt(interval[1]);
    }

    Map<String, Object> json() {
      Map<String, Object> map = new LinkedHashMap<>();
      map.put("median", num(median));
      map.put("min", num(min));
      map.put("max", num(max));
      double[] interval = medianInterval();
      if (interval != null) {
        map.put("medianIntervalLow", num(interval[0]));
        map.put("medianIntervalHigh", num(interval[1]));
        map.put("medianIntervalCoverage", num(interval[2]));
      }
      map.put("samples", samples);
      return map;
    }
  }

  /** A pass/fail fact of the run (a program completed, exact counts matched); any failure fails the run. */
  public record Check(String name, boolean passed, String detail) {}

  /** A goal the numbers are compared with; missing one is reported, never a failure of the run. */
  public record Target(String section, String name, String budget, String value, boolean met) {}

  /** One JMH benchmark: ns/op and B/op per configuration; {@code budgetNs} NaN when it has no time target. */
  public record MicroRow(String name, String perOp, Map<Config, Stats> nanos, Map<Config, Stats> bytes, double budgetNs) {}

  /** One configuration's end-to-end waves, each statistic over the runs' medians. */
  public record E2eRow(
      Config config, Stats waveMillis, Stats handlerCallsPerSecond, Stats reconcilesPerSecond, Stats listenerCpuNanosPerCall,
      Stats processCpuMillisPerWave, List<Map<String, Object>> runs) {}

  /** The soak's starts of one JDK and order of agents: how many, how many hung or warned, their delays to the first reconcile. */
  public record SoakRow(int java, String order, int starts, int hung, int warned, Stats firstReconcileMillis) {}

  /** A class whose live bytes grew from the no-agent run to the resync-meter run. */
  public record HeapGrowth(String name, long addedBytes, long addedInstances, long noAgentBytes, long resyncMeterBytes) {}

  private final Map<String, Object> meta;
  private final List<Check> checks = new ArrayList<>();
  private final Map<String, Double> durations = new LinkedHashMap<>();
  private Map<String, Object> microSettings;
  private List<MicroRow> micro;
  private Map<String, Object> e2eSettings;
  private List<E2eRow> e2e;
  private Map<String, Map<Config, Stats>> startup;
  private Stats waveRatios;
  private Map<String, Object> queueSettings;
  private List<QueueWaveRuns.Row> queueRows;
  private Stats cpuRatios;
  private PooledRatio pooledWave;
  private PooledRatio pooledCpu;
  private Map<Config, PooledRatio> pooledPeers = Map.of();
  private List<SoakRow> soak;
  private Map<Config, Stats> heap;
  private int heapObjects;
  private List<HeapProbe.ClassRow> heapTopClasses;
  private List<HeapGrowth> heapGrowth;

  public Results(Map<String, Object> meta) {
    this.meta = meta;
  }

  public void check(String name, boolean passed, String detail) {
    checks.add(new Check(name, passed, detail));
  }

  public boolean passed() {
    return checks.stream().allMatch(Check::passed);
  }

  public void duration(String section, double seconds) {
    durations.put(section, seconds);
  }

  public void micro(Map<String, Object> settings, List<MicroRow> rows) {
    this.microSettings = settings;
    this.micro = rows;
  }

  public void e2e(Map<String, Object> settings, List<E2eRow> rows) {
    this.e2eSettings = settings;
    this.e2e = rows;
  }

  /** probe name ({@code java -version}, {@code first reconcile}) → configuration → milliseconds. */
  public void startup(Map<String, Map<Config, Stats>> probes) {
    this.startup = probes;
  }

  /** resync-meter's wave time and process CPU per wave over no agent's, one ratio per round of runs. */
  public void e2ePairs(Stats waveRatios, Stats cpuRatios) {
    this.waveRatios = waveRatios;
    this.cpuRatios = cpuRatios;
  }

  /** resync-meter's waves over no agent's, all measured waves pooled: wall time by median, process CPU by mean. */
  public void e2ePooled(PooledRatio wave, PooledRatio cpu) {
    this.pooledWave = wave;
    this.pooledCpu = cpu;
  }

  /** Each peer agent's waves over no agent's, pooled the same way over the rounds the peer ran in. */
  public void e2ePeersPooled(Map<Config, PooledRatio> waves) {
    this.pooledPeers = waves;
  }

  /** The queue-only wave's variants, the first being no agent. */
  public void queueWave(Map<String, Object> settings, List<QueueWaveRuns.Row> rows) {
    this.queueSettings = settings;
    this.queueRows = rows;
  }

  public void soak(List<SoakRow> rows) {
    this.soak = rows;
  }

  public void heap(Map<Config, Stats> bytes, int objects, List<HeapProbe.ClassRow> topClasses, List<HeapGrowth> growth) {
    this.heap = bytes;
    this.heapObjects = objects;
    this.heapTopClasses = topClasses;
    this.heapGrowth = growth;
  }

  // ---- targets ---------------------------------------------------------------------------------

  List<Target> targets() {
    List<Target> targets = new ArrayList<>();
    if (micro != null) {
      for (MicroRow row : micro) {
        double added = added(row.nanos);
        if (!Double.isNaN(row.budgetNs)) {
          targets.add(new Target("micro", row.name + ": ns/op added", "≤ " + fmt(row.budgetNs), fmt(added), added <= row.budgetNs));
        }
        double bytes = added(row.bytes);
        // B/op is a rate measurement: below half a byte per op is no allocation at all.
        targets.add(new Target("micro", row.name + ": B/op added", "0", fmt(bytes), bytes < 0.5));
      }
    }
    if (e2e != null) {
      E2eRow none = e2eRow(Config.NONE);
      E2eRow agent = e2eRow(Config.RESYNC_METER);
      if (none != null && agent != null) {
        if (pooledWave != null) {
          targets.add(
              new Target("e2e", "wave time ratio to no agent, all measured waves pooled", "≤ " + WAVE_RATIO_BUDGET, pooledWave.text(), pooledWave.value() <= WAVE_RATIO_BUDGET));
          targets.add(
              new Target(
                  "e2e", "the wave ratio's interval tells 1.05 from 1.10", "narrower than 0.05", fmt(pooledWave.high() - pooledWave.low()),
                  pooledWave.tellsApart(WAVE_RATIO_BUDGET, 1.10)));
        } else {
          double ratio = waveRatios != null ? waveRatios.median : agent.waveMillis.median / none.waveMillis.median;
          targets.add(new Target("e2e", "wave time ratio to no agent", "≤ " + WAVE_RATIO_BUDGET, fmt(ratio), ratio <= WAVE_RATIO_BUDGET));
        }
        for (E2eRow peer : e2e) {
          if (peer.config.isPeer()) {
            double ours = agent.processCpuMillisPerWave.median - none.processCpuMillisPerWave.median;
            double theirs = peer.processCpuMillisPerWave.median - none.processCpuMillisPerWave.median;
            targets.add(new Target("e2e", "process CPU per wave added (ms) lower than " + peer.config.key, "< " + fmt(theirs), fmt(ours), ours < theirs));
          }
        }
      }
    }
    if (startup != null) {
      startup.forEach(
          (probe, byConfig) -> {
            if (byConfig.containsKey(Config.NONE) && byConfig.containsKey(Config.RESYNC_METER)) {
              double ours = added(byConfig);
              targets.add(new Target("startup", probe + ": added (ms)", "≤ " + fmt(STARTUP_BUDGET_MS), fmt(ours), ours <= STARTUP_BUDGET_MS));
              for (Config peer : byConfig.keySet()) {
                if (peer.isPeer()) {
                  double theirs = byConfig.get(peer).median - byConfig.get(Config.NONE).median;
                  targets.add(new Target("startup", probe + ": added lower than " + peer.key, "< " + fmt(theirs), fmt(ours), ours < theirs));
                }
              }
            }
          });
    }
    if (heap != null && heap.containsKey(Config.NONE) && heap.containsKey(Config.RESYNC_METER)) {
      double ours = added(heap) / MIB;
      targets.add(new Target("heap", "retained heap added (MiB)", "≤ " + fmt(HEAP_BUDGET_MIB), fmt(ours), ours <= HEAP_BUDGET_MIB));
      for (Config peer : heap.keySet()) {
        if (peer.isPeer()) {
          double theirs = (heap.get(peer).median - heap.get(Config.NONE).median) / MIB;
          targets.add(new Target("heap", "retained heap added lower than " + peer.key, "< " + fmt(theirs), fmt(ours), ours < theirs));
        }
      }
    }
    return targets;
  }

  private E2eRow e2eRow(Config config) {
    return e2e.stream().filter(r -> r.config == config).findFirst().orElse(null);
  }

  /** resync-meter's median minus the no-agent median. */
  private static double added(Map<Config, Stats> byConfig) {
    Stats none = byConfig.get(Config.NONE);
    Stats agent = byConfig.get(Config.RESYNC_METER);
    return none == null || agent == null ? Double.NaN : agent.median - none.median;
  }

  // ---- JSON ------------------------------------------------------------------------------------

  Map<String, Object> json() {
    Map<String, Object> root = new LinkedHashMap<>(meta);
    if (micro != null) {
      List<Object> rows = new ArrayList<>();
      for (MicroRow row : micro) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("name", row.name);
        r.put("perOp", row.perOp);
        r.put("nsPerOp", byConfig(row.nanos));
        r.put("bytesPerOp", byConfig(row.bytes));
        r.put("addedNsPerOp", num(added(row.nanos)));
        r.put("addedBytesPerOp", num(added(row.bytes)));
        r.put("budgetNsPerOp", Double.isNaN(row.budgetNs) ? null : row.budgetNs);
        rows.add(r);
      }
      root.put("micro", Map.of("settings", microSettings, "benchmarks", rows));
    }
    if (queueRows != null) {
      Map<String, Object> variants = new LinkedHashMap<>();
      Stats none = queueRows.get(0).wallMillis();
      Stats noneCpu = queueRows.get(0).cpuMillis();
      for (QueueWaveRuns.Row row : queueRows) {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("title", row.variant().title());
        v.put("waveMillis", row.wallMillis().json());
        v.put("processCpuMillisPerWave", row.cpuMillis().json());
        v.put("waveRatio", num(row.wallMillis().median() / none.median()));
        v.put("cpuRatio", num(row.cpuMillis().median() / noneCpu.median()));
        variants.put(row.variant().key(), v);
      }
      root.put("queueWave", Map.of("settings", queueSettings, "variants", variants));
    }
    if (e2e != null) {
      Map<String, Object> configs = new LinkedHashMap<>();
      for (E2eRow row : e2e) {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("waveMillis", row.waveMillis.json());
        c.put("handlerCallsPerSecond", row.handlerCallsPerSecond.json());
        c.put("reconcilesPerSecond", row.reconcilesPerSecond.json());
        c.put("listenerCpuNanosPerHandlerCall", row.listenerCpuNanosPerCall.json());
        c.put("processCpuMillisPerWave", row.processCpuMillisPerWave.json());
        c.put("runs", row.runs);
        configs.put(row.config.key, c);
      }
      Map<String, Object> e2eJson = new LinkedHashMap<>();
      e2eJson.put("settings", e2eSettings);
      e2eJson.put("configs", configs);
      if (waveRatios != null) {
        e2eJson.put("pairedWaveRatio", waveRatios.json());
        e2eJson.put("pairedProcessCpuRatio", cpuRatios.json());
      }
      if (pooledWave != null) {
        e2eJson.put("pooledWaveRatio", pooledWave.json());
        e2eJson.put("pooledProcessCpuRatio", pooledCpu.json());
      }
      Map<String, Object> peers = new LinkedHashMap<>();
      pooledPeers.forEach((config, ratio) -> peers.put(config.key, ratio.json()));
      if (!peers.isEmpty()) {
        e2eJson.put("pooledPeerWaveRatios", peers);
      }
      root.put("e2e", e2eJson);
    }
    if (startup != null) {
      Map<String, Object> probes = new LinkedHashMap<>();
      startup.forEach((probe, byConfig) -> probes.put(probe, byConfig(byConfig)));
      root.put("startup", Map.of("unit", "ms", "probes", probes));
    }
    if (soak != null) {
      List<Map<String, Object>> rows = new ArrayList<>();
      for (SoakRow row : soak) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("java", row.java());
        r.put("resyncMeter", row.order());
        r.put("starts", row.starts());
        r.put("hung", row.hung());
        r.put("warned", row.warned());
        r.put("firstReconcileMillis", row.firstReconcileMillis().json());
        rows.add(r);
      }
      root.put("soak", rows);
    }
    if (heap != null) {
      Map<String, Object> h = new LinkedHashMap<>();
      h.put("unit", "bytes");
      h.put("liveHeap", byConfig(heap));
      Map<String, Object> addedBytes = new LinkedHashMap<>();
      heap.forEach((config, stats) -> addedBytes.put(config.key, stats.median - heap.get(Config.NONE).median));
      h.put("addedToNoAgent", heap.containsKey(Config.NONE) ? addedBytes : Map.of());
      h.put("cachedObjects", heapObjects);
      h.put("topResyncMeterClasses", heapTopClasses);
      h.put("largestGrowthWithResyncMeter", heapGrowth);
      root.put("heap", h);
    }
    root.put("durationsSeconds", durations);
    root.put("targets", targets());
    root.put("checks", checks);
    root.put("passed", passed());
    return root;
  }

  /** JSON has no NaN: a value not measured is null. */
  static Double num(double value) {
    return Double.isNaN(value) ? null : value;
  }

  private static Map<String, Object> byConfig(Map<Config, Stats> stats) {
    Map<String, Object> map = new LinkedHashMap<>();
    stats.forEach((config, s) -> map.put(config.key, s.json()));
    return map;
  }

  // ---- Markdown --------------------------------------------------------------------------------

  String markdown() {
    StringBuilder md = new StringBuilder();
    md.append("# resync-meter: what the agent costs its host\n\n");
    md.append("| | |\n|---|---|\n");
    for (String key : List.of("date", "label", "mode", "machine", "jvm", "agentJar", "command")) {
      if (meta.get(key) != null) {
        md.append("| ").append(key).append(" | ").append(cell(meta.get(key))).append(" |\n");
      }
    }
    md.append("| result | ").append(passed() ? "all checks passed" : "**checks failed** (see Checks)").append(" |\n\n");

    List<Target> targets = targets();
    if (!targets.isEmpty()) {
      md.append("## Targets\n\n| section | target | budget | value | met |\n|---|---|---|---|---|\n");
      for (Target t : targets) {
        md.append("| ").append(t.section).append(" | ").append(t.name).append(" | ").append(t.budget).append(" | ").append(t.value)
            .append(" | ").append(t.met ? "met" : "**missed**").append(" |\n");
      }
      md.append('\n');
    }
    if (micro != null) {
      md.append("## Micro-benchmarks (JMH, real client-java classes)\n\n").append(cell(microSettings)).append("\n\n");
      md.append("| benchmark | per op | configuration | ns/op median | spread (min–max) | ratio to no agent | B/op | added ns/op | added B/op |\n");
      md.append("|---|---|---|---|---|---|---|---|---|\n");
      for (MicroRow row : micro) {
        for (Config config : row.nanos.keySet()) {
          Stats ns = row.nanos.get(config);
          Stats bytes = row.bytes.get(config);
          boolean agent = config == Config.RESYNC_METER;
          md.append("| ").append(row.name).append(" | ").append(row.perOp).append(" | ").append(config.key).append(" | ").append(fmt(ns.median))
              .append(" | ").append(fmt(ns.min)).append("–").append(fmt(ns.max)).append(" | ").append(ratio(ns, row.nanos.get(Config.NONE)))
              .append(" | ").append(bytes == null ? "" : fmt(bytes.median)).append(" | ").append(agent ? fmt(added(row.nanos)) : "")
              .append(" | ").append(agent ? fmt(added(row.bytes)) : "").append(" |\n");
        }
      }
      md.append('\n');
    }
    if (e2e != null) {
      md.append("## End-to-end resync waves\n\n").append(cell(e2eSettings)).append("\n\n");
      if (pooledWave != null) {
        md.append("All measured waves pooled (the interval resamples whole rounds, ").append(PooledRatio.RESAMPLES).append(" times): wave time ratio **")
            .append(pooledWave.text()).append("**, process CPU per wave ratio of the means **").append(pooledCpu.text())
            .append("**. The target is met or missed by the pooled ratio; 1.05 and 1.10 are told apart only when the interval is narrower\n")
            .append("than 0.05.\n\n");
      }
      if (!pooledPeers.isEmpty()) {
        md.append("The same wave time ratio for the peers, over the rounds they ran in: ")
            .append(String.join("; ", pooledPeers.entrySet().stream().map(e -> e.getKey().key + " **" + e.getValue().text() + "**").toList()))
            .append(".\n\n");
      }
      md.append("Medians over runs of each run's median wave; spread is min–max of the run medians.\n\n");
      if (waveRatios != null) {
        md.append("Paired by round (resync-meter's run over the no-agent run of the same round, ").append(waveRatios.samples.size())
            .append(" rounds): wave time ratio **").append(fmt(waveRatios.median)).append("** (").append(range(waveRatios)).append(withInterval(waveRatios))
            .append("), process CPU per wave ratio **").append(fmt(cpuRatios.median)).append("** (").append(range(cpuRatios)).append(withInterval(cpuRatios))
            .append("): one ratio per round, each of two runs' medians.\n\n");
      }
      md.append("| configuration | wave ms | spread | ratio to no agent | handler calls/s | reconciles/s | listener CPU ns/handler call | spread | process CPU ms/wave | spread | ratio |\n");
      md.append("|---|---|---|---|---|---|---|---|---|---|---|\n");
      E2eRow none = e2eRow(Config.NONE);
      for (E2eRow row : e2e) {
        md.append("| ").append(row.config.key).append(" | ").append(fmt(row.waveMillis.median)).append(" | ").append(range(row.waveMillis))
            .append(" | ").append(none == null ? "" : ratio(row.waveMillis, none.waveMillis)).append(" | ").append(fmt(row.handlerCallsPerSecond.median))
            .append(" | ").append(fmt(row.reconcilesPerSecond.median)).append(" | ").append(fmt(row.listenerCpuNanosPerCall.median)).append(" | ")
            .append(range(row.listenerCpuNanosPerCall)).append(" | ").append(fmt(row.processCpuMillisPerWave.median)).append(" | ")
            .append(range(row.processCpuMillisPerWave)).append(" | ").append(none == null ? "" : ratio(row.processCpuMillisPerWave, none.processCpuMillisPerWave))
            .append(" |\n");
      }
      md.append('\n');
    }
    if (queueRows != null) {
      md.append("## Queue-only waves\n\n").append(cell(queueSettings)).append("\n\n");
      md.append("The wave's queue half alone: the main thread adds every key to a controller's rate-limiting queue, two workers reconcile them. ")
          .append("Medians over runs of each run's median wave; spread is min–max of the run medians. ")
          .append("The last variant has no agent: the JDK's collection methods that the controller's hot path shares were first called with other types, as an agent's start calls them.\n\n");
      md.append("| variant | wave ms | spread | ratio to no agent | process CPU ms/wave | spread | ratio |\n|---|---|---|---|---|---|---|\n");
      Stats none = queueRows.get(0).wallMillis();
      Stats noneCpu = queueRows.get(0).cpuMillis();
      for (QueueWaveRuns.Row row : queueRows) {
        md.append("| ").append(row.variant().title()).append(" | ").append(fmt(row.wallMillis().median())).append(" | ").append(range(row.wallMillis()))
            .append(" | ").append(ratio(row.wallMillis(), none)).append(" | ").append(fmt(row.cpuMillis().median())).append(" | ")
            .append(range(row.cpuMillis())).append(" | ").append(ratio(row.cpuMillis(), noneCpu)).append(" |\n");
      }
      md.append('\n');
    }
    if (startup != null) {
      md.append("## Start-up\n\n| probe | configuration | median ms | spread (min–max) | ratio to no agent | added ms |\n|---|---|---|---|---|---|\n");
      startup.forEach(
          (probe, byConfig) ->
              byConfig.forEach(
                  (config, stats) -> {
                    Stats none = byConfig.get(Config.NONE);
                    md.append("| ").append(probe).append(" | ").append(config.key).append(" | ").append(fmt(stats.median)).append(" | ")
                        .append(range(stats)).append(" | ").append(ratio(stats, none)).append(" | ")
                        .append(none == null ? "" : fmt(stats.median - none.median)).append(" |\n");
                  }));
      md.append('\n');
    }
    if (soak != null) {
      md.append("## Start-up soak\n\nresync-meter started alone and beside the OpenTelemetry agent, loaded after and before it, the three alternating. ")
          .append("A start hung without a first reconcile within ").append(BenchMain.HUNG_AFTER.toSeconds())
          .append(" s; it warned when resync-meter printed a line other than INFO, or the JVM a warning that the OpenTelemetry agent alone does not cause.\n\n")
          .append("| Java | resync-meter | starts | hung | warned | first reconcile median ms | spread (min–max) |\n|---|---|---|---|---|---|---|\n");
      for (SoakRow row : soak) {
        md.append("| ").append(row.java()).append(" | ").append(row.order()).append(" | ").append(row.starts()).append(" | ").append(row.hung())
            .append(" | ").append(row.warned()).append(" | ").append(fmt(row.firstReconcileMillis().median)).append(" | ")
            .append(range(row.firstReconcileMillis())).append(" |\n");
      }
      md.append('\n');
    }
    if (heap != null) {
      md.append("## Retained heap at ").append(String.format(Locale.ROOT, "%,d", heapObjects)).append(" cached objects\n\n");
      md.append("Live heap (`GC.class_histogram` Total, after a full GC) at the end of each e2e run; medians over runs.\n\n");
      md.append("| configuration | live heap MiB | spread (min–max) | added MiB |\n|---|---|---|---|\n");
      Stats none = heap.get(Config.NONE);
      heap.forEach(
          (config, stats) ->
              md.append("| ").append(config.key).append(" | ").append(fmt(stats.median / MIB)).append(" | ").append(fmt(stats.min / MIB)).append("–")
                  .append(fmt(stats.max / MIB)).append(" | ").append(none == null ? "" : fmt((stats.median - none.median) / MIB)).append(" |\n"));
      if (heapTopClasses != null && !heapTopClasses.isEmpty()) {
        md.append("\nLargest dev.resyncmeter classes on the heap (resync-meter run):\n\n| class | instances | bytes |\n|---|---|---|\n");
        for (HeapProbe.ClassRow row : heapTopClasses) {
          md.append("| `").append(row.name()).append("` | ").append(row.instances()).append(" | ").append(row.bytes()).append(" |\n");
        }
      }
      if (heapGrowth != null && !heapGrowth.isEmpty()) {
        md.append("\nClasses that grew most with resync-meter (first resync-meter run against first no-agent run, rows ≥ ")
            .append(HeapProbe.REPORTED_ROW_BYTES / 1024).append(" KiB):\n\n| class | added bytes | added instances | no agent | resync-meter |\n|---|---|---|---|---|\n");
        for (HeapGrowth row : heapGrowth) {
          md.append("| `").append(row.name()).append("` | ").append(row.addedBytes()).append(" | ").append(row.addedInstances()).append(" | ")
              .append(row.noAgentBytes()).append(" | ").append(row.resyncMeterBytes()).append(" |\n");
        }
      }
      md.append('\n');
    }
    md.append("## Checks\n\n| check | passed | detail |\n|---|---|---|\n");
    for (Check check : checks) {
      md.append("| ").append(check.name).append(" | ").append(check.passed ? "yes" : "**no**").append(" | ").append(cell(check.detail)).append(" |\n");
    }
    md.append("\nDurations (s): ").append(cell(durations)).append('\n');
    return md.toString();
  }

  private static String ratio(Stats value, Stats none) {
    return none == null || value == null ? "" : String.format(Locale.ROOT, "%.3f", value.median / none.median);
  }

  private static String withInterval(Stats stats) {
    String interval = stats.medianIntervalText();
    return interval.isEmpty() ? "" : "; " + interval;
  }

  private static String range(Stats stats) {
    return fmt(stats.min) + "–" + fmt(stats.max);
  }

  static String fmt(double value) {
    if (Double.isNaN(value)) {
      return "n/a";
    }
    double abs = Math.abs(value);
    return String.format(Locale.ROOT, abs >= 1000 ? "%.0f" : abs >= 10 ? "%.1f" : "%.2f", value);
  }

  private static String cell(Object value) {
    String text = value instanceof Map<?, ?> map ? mapText(map) : String.valueOf(value);
    return text.replace("|", "\\|").replace("\n", " ");
  }

  private static String mapText(Map<?, ?> map) {
    StringBuilder text = new StringBuilder();
    map.forEach((k, v) -> text.append(text.length() == 0 ? "" : ", ").append(k).append(": ").append(v instanceof Map<?, ?> m ? mapText(m) : v));
    return text.toString();
  }

  // ---- files -----------------------------------------------------------------------------------

  /** Writes {@code <stamp>[-label].json/.md} and {@code latest.json/.md}; returns the JSON path. */
  public Path write(Path dir, String name) throws IOException {
    Files.createDirectories(dir);
    String json = new GsonBuilder().setPrettyPrinting().serializeNulls().create().toJson(json());
    String md = markdown();
    Path jsonFile = Files.writeString(dir.resolve(name + ".json"), json + "\n");
    Files.writeString(dir.resolve(name + ".md"), md);
    Files.writeString(dir.resolve("latest.json"), json + "\n");
    Files.writeString(dir.resolve("latest.md"), md);
    return jsonFile;
  }

  static <V> Map<Config, V> ordered() {
    return new EnumMap<>(Config.class);
  }
}
