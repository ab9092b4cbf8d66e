package dev.resyncmeter.bench;

import static dev.resyncmeter.bench.Results.added;

import com.google.gson.GsonBuilder;
import dev.resyncmeter.bench.PeerAgents.Config;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A run's results as JSON: plain maps and lists through Gson, pretty-printed, nulls kept. */
final class JsonReport {

  private JsonReport() {}

  static String of(Results results) {
    return new GsonBuilder().setPrettyPrinting().serializeNulls().create().toJson(tree(results));
  }

  static Map<String, Object> tree(Results results) {
    Map<String, Object> root = new LinkedHashMap<>(results.meta());
    if (results.micro() != null) {
      root.put("micro", OrderedMap.of("settings", results.microSettings(), "benchmarks", micro(results.micro())));
    }
    if (results.queueRows() != null) {
      root.put("queueWave", OrderedMap.of("settings", results.queueSettings(), "variants", queueVariants(results.queueRows())));
    }
    if (results.e2e() != null) {
      root.put("e2e", e2e(results));
    }
    if (results.depthRows() != null) {
      root.put(
          "depth",
          OrderedMap.of(
              "settings", results.depthSettings(), "depths", results.depthRows().stream().map(DepthSection::json).toList(),
              "flatness", num(DepthTable.flatness(results.depthRows()))));
    }
    if (results.startup() != null) {
      Map<String, Object> probes = new LinkedHashMap<>();
      results.startup().forEach((probe, byConfig) -> probes.put(probe, byConfig(byConfig)));
      root.put("startup", OrderedMap.of("unit", "ms", "probes", probes));
    }
    if (results.soak() != null) {
      root.put("soak", results.soak().stream().map(JsonReport::soakRow).toList());
    }
    if (results.heap() != null) {
      root.put("heap", heap(results));
    }
    root.put("durationsSeconds", results.durations());
    root.put("targets", Targets.of(results));
    root.put("checks", results.checks());
    root.put("passed", results.passed());
    return root;
  }

  private static List<Object> micro(List<Results.MicroRow> micro) {
    List<Object> rows = new ArrayList<>();
    for (Results.MicroRow row : micro) {
      rows.add(
          OrderedMap.of(
              "name", row.name(), "perOp", row.perOp(), "nsPerOp", byConfig(row.nanos()), "bytesPerOp", byConfig(row.bytes()),
              "addedNsPerOp", num(added(row.nanos())), "addedBytesPerOp", num(added(row.bytes())),
              "budgetNsPerOp", Double.isNaN(row.budgetNs()) ? null : row.budgetNs()));
    }
    return rows;
  }

  private static Map<String, Object> queueVariants(List<Results.QueueRow> rows) {
    Map<String, Object> variants = new LinkedHashMap<>();
    Stats none = rows.get(0).wallMillis();
    Stats noneCpu = rows.get(0).cpuMillis();
    for (Results.QueueRow row : rows) {
      variants.put(
          row.key(),
          OrderedMap.of(
              "title", row.title(), "waveMillis", stats(row.wallMillis()), "processCpuMillisPerWave", stats(row.cpuMillis()),
              "waveRatio", num(row.wallMillis().median() / none.median()), "cpuRatio", num(row.cpuMillis().median() / noneCpu.median())));
    }
    return variants;
  }

  private static Map<String, Object> e2e(Results results) {
    Map<String, Object> configs = new LinkedHashMap<>();
    for (Results.E2eRow row : results.e2e()) {
      configs.put(
          row.config().key,
          OrderedMap.of(
              "waveMillis", stats(row.waveMillis()), "handlerCallsPerSecond", stats(row.handlerCallsPerSecond()),
              "reconcilesPerSecond", stats(row.reconcilesPerSecond()), "listenerCpuNanosPerHandlerCall", stats(row.listenerCpuNanosPerCall()),
              "processCpuMillisPerWave", stats(row.processCpuMillisPerWave()), "runs", row.runs()));
    }
    Map<String, Object> e2e = OrderedMap.of("settings", results.e2eSettings(), "configs", configs);
    if (results.waveRatios() != null) {
      e2e.put("pairedWaveRatio", stats(results.waveRatios()));
      e2e.put("pairedProcessCpuRatio", stats(results.cpuRatios()));
    }
    if (results.pooledWave() != null) {
      e2e.put("pooledWaveRatio", pooled(results.pooledWave()));
      e2e.put("pooledProcessCpuRatio", pooled(results.pooledCpu()));
    }
    Map<String, Object> peers = new LinkedHashMap<>();
    results.pooledPeers().forEach((config, ratio) -> peers.put(config.key, pooled(ratio)));
    if (!peers.isEmpty()) {
      e2e.put("pooledPeerWaveRatios", peers);
    }
    Map<String, Object> inPeerRounds = new LinkedHashMap<>();
    results.inPeerRounds().forEach((wave, ratio) -> inPeerRounds.put(wave, pooled(ratio)));
    if (!inPeerRounds.isEmpty()) {
      e2e.put("resyncMeterWaveRatiosInPeerRounds", inPeerRounds);
    }
    if (results.fabric8Waves() != null) {
      e2e.put("fabric8", fabric8(results.fabric8Waves()));
    }
    return e2e;
  }

  /** The fabric8 informer wave: as the client-java wave's configs, without listener CPU and heap; every configuration's pooled ratio. */
  private static Map<String, Object> fabric8(Results.Fabric8Waves waves) {
    Map<String, Object> configs = new LinkedHashMap<>();
    for (Results.E2eRow row : waves.rows()) {
      configs.put(
          row.config().key,
          OrderedMap.of(
              "waveMillis", stats(row.waveMillis()), "handlerCallsPerSecond", stats(row.handlerCallsPerSecond()),
              "reconcilesPerSecond", stats(row.reconcilesPerSecond()), "processCpuMillisPerWave", stats(row.processCpuMillisPerWave()), "runs", row.runs()));
    }
    Map<String, Object> pooled = new LinkedHashMap<>();
    waves.pooledWaves().forEach((config, ratio) -> pooled.put(config.key, pooled(ratio)));
    return OrderedMap.of(
        "settings", waves.settings(), "configs", configs, "pooledWaveRatios", pooled,
        "pooledProcessCpuRatio", waves.pooledCpu() == null ? null : pooled(waves.pooledCpu()));
  }

  private static Map<String, Object> soakRow(Results.SoakRow row) {
    return OrderedMap.of(
        "java", row.java(), "resyncMeter", row.order(), "starts", row.starts(), "hung", row.hung(), "warned", row.warned(),
        "firstReconcileMillis", stats(row.firstReconcileMillis()));
  }

  private static Map<String, Object> heap(Results results) {
    Map<Config, Stats> heap = results.heap();
    Map<String, Object> addedBytes = new LinkedHashMap<>();
    heap.forEach((config, stats) -> addedBytes.put(config.key, stats.median() - heap.get(Config.NONE).median()));
    return OrderedMap.of(
        "unit", "bytes", "liveHeap", byConfig(heap), "addedToNoAgent", heap.containsKey(Config.NONE) ? addedBytes : Map.of(),
        "cachedObjects", results.heapObjects(), "topResyncMeterClasses", results.heapTopClasses(),
        "largestGrowthWithResyncMeter", results.heapGrowth());
  }

  static Map<String, Object> stats(Stats stats) {
    Map<String, Object> map = OrderedMap.of("median", num(stats.median()), "min", num(stats.min()), "max", num(stats.max()));
    double[] interval = stats.medianInterval();
    if (interval != null) {
      map.put("medianIntervalLow", num(interval[0]));
      map.put("medianIntervalHigh", num(interval[1]));
      map.put("medianIntervalCoverage", num(interval[2]));
    }
    map.put("samples", stats.samples());
    return map;
  }

  private static Map<String, Object> pooled(PooledRatio ratio) {
    return OrderedMap.of(
        "value", ratio.value(), "low", ratio.low(), "high", ratio.high(), "coverage", PooledRatio.COVERAGE, "rounds", ratio.rounds(),
        "wavesPerConfiguration", ratio.waves(), "resamples", PooledRatio.RESAMPLES);
  }

  private static Map<String, Object> byConfig(Map<Config, Stats> stats) {
    Map<String, Object> map = new LinkedHashMap<>();
    stats.forEach((config, s) -> map.put(config.key, stats(s)));
    return map;
  }

  /** JSON has no NaN: a value not measured is null. */
  static Double num(double value) {
    return Double.isNaN(value) ? null : value;
  }
}
