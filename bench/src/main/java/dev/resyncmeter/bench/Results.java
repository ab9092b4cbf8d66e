package dev.resyncmeter.bench;

import dev.resyncmeter.bench.PeerAgents.Config;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one benchmark invocation measured: each section's numbers as the section hands them over, its
 * checks and its durations. A section that did not run stays null. {@link JsonReport} and {@link
 * MarkdownReport} render it; {@link Targets} compares it with the goals.
 */
public final class Results {

  static final double MIB = 1024.0 * 1024.0;

  /** A pass/fail fact of the run (a program completed, exact counts matched); any failure fails the run. */
  public record Check(String name, boolean passed, String detail) {}

  /** One JMH benchmark: ns/op and B/op per configuration; {@code budgetNs} NaN when it has no time target. */
  public record MicroRow(String name, String perOp, Map<Config, Stats> nanos, Map<Config, Stats> bytes, double budgetNs) {}

  /** One configuration's end-to-end waves, each statistic over the runs' medians. */
  public record E2eRow(
      Config config, Stats waveMillis, Stats handlerCallsPerSecond, Stats reconcilesPerSecond, Stats listenerCpuNanosPerCall,
      Stats processCpuMillisPerWave, List<Map<String, Object>> runs) {}

  /**
   * The fabric8 informer wave ({@link Fabric8Wave}): its settings, each configuration's runs (no
   * listener CPU: the program cannot tell it), and each configuration's waves over no agent's, all
   * measured waves of the rounds it ran in pooled, by wall time; resync-meter's process CPU the same way.
   */
  public record Fabric8Waves(Map<String, Object> settings, List<E2eRow> rows, Map<Config, PooledRatio> pooledWaves, PooledRatio pooledCpu) {}

  /** One queue-wave variant: its wave over its runs, wall time and process CPU per wave, in milliseconds. */
  public record QueueRow(String key, String title, Stats wallMillis, Stats cpuMillis) {}

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
  private List<QueueRow> queueRows;
  private Stats cpuRatios;
  private PooledRatio pooledWave;
  private PooledRatio pooledCpu;
  private Map<Config, PooledRatio> pooledPeers = Map.of();
  private Fabric8Waves fabric8;
  private final Map<String, PooledRatio> inPeerRounds = new java.util.LinkedHashMap<>();
  private List<SoakRow> soak;
  private Map<String, Object> depthSettings;
  private List<DepthTable.Row> depthRows;
  private Map<Config, Stats> heap;
  private int heapObjects;
  private List<HeapProbe.ClassRow> heapTopClasses;
  private List<HeapGrowth> heapGrowth;

  /** {@code meta}: what ran where ({@link RunMeta}), written first in both files. */
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

  /** resync-meter's waves over no agent's in the rounds the peers ran in, by wave ({@code client-java}, {@code fabric8 informer}). */
  public void inPeerRounds(String wave, PooledRatio ratio) {
    inPeerRounds.put(wave, ratio);
  }

  Map<String, PooledRatio> inPeerRounds() {
    return inPeerRounds;
  }

  /** The fabric8 informer wave of the e2e section. */
  public void fabric8Waves(Fabric8Waves waves) {
    this.fabric8 = waves;
  }

  /** The queue-only wave's variants, the first being no agent. */
  public void queueWave(Map<String, Object> settings, List<QueueRow> rows) {
    this.queueSettings = settings;
    this.queueRows = rows;
  }

  /** The depth table: resync-meter's added process CPU per item at each depth of the client-java wave. */
  void depth(Map<String, Object> settings, List<DepthTable.Row> rows) {
    this.depthSettings = settings;
    this.depthRows = rows;
  }

  Map<String, Object> depthSettings() {
    return depthSettings;
  }

  List<DepthTable.Row> depthRows() {
    return depthRows;
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

  // ---- read by the formats and the targets -----------------------------------------------------

  Map<String, Object> meta() {
    return meta;
  }

  List<Check> checks() {
    return checks;
  }

  Map<String, Double> durations() {
    return durations;
  }

  Map<String, Object> microSettings() {
    return microSettings;
  }

  List<MicroRow> micro() {
    return micro;
  }

  Map<String, Object> e2eSettings() {
    return e2eSettings;
  }

  List<E2eRow> e2e() {
    return e2e;
  }

  /** The e2e row of {@code config}, null when it did not run. */
  E2eRow e2eRow(Config config) {
    return e2e.stream().filter(r -> r.config() == config).findFirst().orElse(null);
  }

  Stats waveRatios() {
    return waveRatios;
  }

  Stats cpuRatios() {
    return cpuRatios;
  }

  PooledRatio pooledWave() {
    return pooledWave;
  }

  PooledRatio pooledCpu() {
    return pooledCpu;
  }

  Map<Config, PooledRatio> pooledPeers() {
    return pooledPeers;
  }

  /** Null when the e2e section did not run the fabric8 wave. */
  Fabric8Waves fabric8Waves() {
    return fabric8;
  }

  Map<String, Object> queueSettings() {
    return queueSettings;
  }

  List<QueueRow> queueRows() {
    return queueRows;
  }

  Map<String, Map<Config, Stats>> startup() {
    return startup;
  }

  List<SoakRow> soak() {
    return soak;
  }

  Map<Config, Stats> heap() {
    return heap;
  }

  int heapObjects() {
    return heapObjects;
  }

  List<HeapProbe.ClassRow> heapTopClasses() {
    return heapTopClasses;
  }

  List<HeapGrowth> heapGrowth() {
    return heapGrowth;
  }

  /** resync-meter's median minus the no-agent median. */
  static double added(Map<Config, Stats> byConfig) {
    Stats none = byConfig.get(Config.NONE);
    Stats agent = byConfig.get(Config.RESYNC_METER);
    return none == null || agent == null ? Double.NaN : agent.median() - none.median();
  }

  /** A map by configuration, in the configurations' order. */
  static <V> Map<Config, V> ordered() {
    return new EnumMap<>(Config.class);
  }
}
