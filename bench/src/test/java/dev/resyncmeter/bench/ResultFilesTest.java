package dev.resyncmeter.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resyncmeter.bench.PeerAgents.Config;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The result files of a fixed run, every section filled, byte for byte: a change to how a run is
 * written shows here as a change to {@code fixed-results.json} and {@code fixed-results.md}.
 */
class ResultFilesTest {

  @TempDir Path dir;

  @Test
  void theJsonAndMarkdownOfAFixedRunAreExactlyAsBefore() throws Exception {
    Results results = fixedRun();

    ResultFiles.write(results, dir, "fixed");

    assertThat(Files.readString(dir.resolve("fixed.json"))).isEqualTo(resource("fixed-results.json"));
    assertThat(Files.readString(dir.resolve("fixed.md"))).isEqualTo(resource("fixed-results.md"));
    assertThat(Files.readString(dir.resolve("latest.json"))).isEqualTo(resource("fixed-results.json"));
    assertThat(Files.readString(dir.resolve("latest.md"))).isEqualTo(resource("fixed-results.md"));
  }

  /** A run with every section, a check failed, a value not measured and figures of every magnitude. */
  static Results fixedRun() {
    Map<String, Object> meta = new LinkedHashMap<>();
    meta.put("date", "2026-12-07 12:00");
    meta.put("label", null);
    meta.put("mode", "full");
    meta.put("sections", List.of("micro", "e2e", "queue", "depth", "startup", "soak", "heap"));
    meta.put("machine", new LinkedHashMap<>(Map.of("cores", 2)));
    meta.put("jvm", new LinkedHashMap<>(Map.of("version", "17.0.15+6")));
    meta.put("agentJar", new LinkedHashMap<>(Map.of("path", "/agent.jar")));
    meta.put("command", "bench/run --label a|b");
    Results results = new Results(meta);

    Map<String, Object> microSettings = new LinkedHashMap<>();
    microSettings.put("rounds", 2);
    microSettings.put("warmup", "3 x 1 s");
    results.micro(
        microSettings,
        List.of(
            new Results.MicroRow("handlerNoopIdle", "1 handler call", byConfig(stats(5.25, 5.5, 4.75), stats(7.0, 8.0, 6.5)), byConfig(stats(0.0, 0.0), stats(0.25, 0.0)), 30),
            new Results.MicroRow("clockRead", "1 System.nanoTime()", byConfig(stats(25.0, 24.5), stats(26.0, 25.5)), byConfig(stats(0.0)), Double.NaN),
            new Results.MicroRow("workerItem", "1 item", byConfig(stats(1234.5, 1500.0), stats(1390.0, 1410.0)), byConfig(stats(48.0), stats(112.0)), 120)));

    Map<String, Object> e2eSettings = new LinkedHashMap<>();
    e2eSettings.put("objects", 100_000);
    e2eSettings.put("wave", "from the tick | to the last reconcile");
    Map<String, Object> run = new LinkedHashMap<>();
    run.put("waves", List.of(Map.of("waveMillis", 410.0)));
    run.put("liveHeapBytes", 123456789L);
    results.e2e(
        e2eSettings,
        List.of(
            new Results.E2eRow(Config.NONE, stats(400.0, 420.0, 380.0), stats(250000.0), stats(240000.0), stats(95.5, 97.0), stats(700.0, 720.0), List.of(run)),
            new Results.E2eRow(Config.RESYNC_METER, stats(430.0, 445.0), stats(230000.0), stats(225000.0), stats(120.0, 118.0), stats(760.0, 770.0), List.of(run)),
            new Results.E2eRow(Config.OPENTELEMETRY, stats(520.0), stats(190000.0), stats(185000.0), stats(140.0), stats(900.0), List.of())));
    results.e2ePairs(stats(1.07, 1.02, 1.12, 1.05, 1.09, 1.04, 1.08, 1.11), stats(1.08, 1.09));
    List<double[]> without = List.of(new double[] {400, 410, 390}, new double[] {420, 380, 405});
    List<double[]> with = List.of(new double[] {430, 440, 425}, new double[] {450, 415, 435});
    results.e2ePooled(PooledRatio.of(with, without, PooledRatio.Summary.MEDIAN), PooledRatio.of(with, without, PooledRatio.Summary.MEAN));
    Map<Config, PooledRatio> peers = new EnumMap<>(Config.class);
    peers.put(Config.OPENTELEMETRY, PooledRatio.of(List.of(new double[] {520, 530}), without, PooledRatio.Summary.MEDIAN));
    results.e2ePeersPooled(peers);
    // the peers ran in the first round only: resync-meter's ratio over that round, to read theirs against
    results.inPeerRounds("client-java", PooledRatio.of(with.subList(0, 1), without.subList(0, 1), PooledRatio.Summary.MEDIAN));
    Map<String, Object> fabric8Run = new LinkedHashMap<>();
    fabric8Run.put("waveMillis", List.of(150.0, 160.0));
    Map<Config, PooledRatio> fabric8Pooled = new EnumMap<>(Config.class);
    List<double[]> fabric8Without = List.of(new double[] {150, 160}, new double[] {155, 145});
    fabric8Pooled.put(Config.RESYNC_METER, PooledRatio.of(List.of(new double[] {170, 165}, new double[] {175, 160}), fabric8Without, PooledRatio.Summary.MEDIAN));
    fabric8Pooled.put(Config.JMX_EXPORTER, PooledRatio.of(List.of(new double[] {190, 180}), fabric8Without, PooledRatio.Summary.MEDIAN));
    results.fabric8Waves(
        new Results.Fabric8Waves(
            OrderedMap.of("objects", 20_000, "queue", "keys | a set"),
            List.of(
                new Results.E2eRow(Config.NONE, stats(155.0, 150.0), stats(130000.0), stats(128000.0), stats(), stats(300.0, 310.0), List.of(fabric8Run)),
                new Results.E2eRow(Config.RESYNC_METER, stats(167.5, 170.0), stats(120000.0), stats(118000.0), stats(), stats(330.0), List.of(fabric8Run)),
                new Results.E2eRow(Config.JMX_EXPORTER, stats(185.0), stats(110000.0), stats(108000.0), stats(), stats(350.0), List.of())),
            fabric8Pooled,
            PooledRatio.of(List.of(new double[] {330, 320}, new double[] {340, 330}), List.of(new double[] {300, 310}, new double[] {305, 300}), PooledRatio.Summary.MEAN)));
    results.inPeerRounds("fabric8 informer", PooledRatio.of(List.of(new double[] {170, 165}), fabric8Without.subList(0, 1), PooledRatio.Summary.MEDIAN));

    Map<String, Object> queueSettings = new LinkedHashMap<>();
    queueSettings.put("objects", 100_000);
    List<QueueWaveRuns.Variant> variants = QueueWaveRuns.variants("-javaagent:/agent.jar=host=127.0.0.1,port=0");
    results.queueWave(
        queueSettings,
        List.of(
            queueRow(variants.get(0), stats(150.0, 160.0), stats(290.0, 300.0)),
            queueRow(variants.get(1), stats(185.0, 190.0), stats(350.0)),
            queueRow(variants.get(2), stats(170.0), stats(320.0)),
            queueRow(variants.get(3), stats(165.0), stats(310.0))));

    Map<String, Map<Config, Stats>> probes = new LinkedHashMap<>();
    Map<Config, Stats> version = new EnumMap<>(Config.class);
    version.put(Config.NONE, stats(45.0, 47.0));
    version.put(Config.RESYNC_METER, stats(52.0, 50.0));
    version.put(Config.JMX_EXPORTER, stats(160.0));
    probes.put("java -version", version);
    Map<Config, Stats> reconcile = new EnumMap<>(Config.class);
    reconcile.put(Config.NONE, stats(1900.0, 2000.0));
    reconcile.put(Config.RESYNC_METER, stats(2010.0));
    probes.put(StartupSection.firstReconcileProbe(25), reconcile);
    results.startup(probes);

    results.depth(
        OrderedMap.of("pairs", 2, "measuredWaves", 5),
        List.of(
            new DepthTable.Row(10_000, List.of(1000.0, 1100.0), List.of(1100.0, 1250.0)),
            new DepthTable.Row(500_000, List.of(2000.0, 2100.0), List.of(2150.0, 2200.0))));
    results.soak(
        List.of(
            new Results.SoakRow(17, "alone", 10, 0, 0, stats(2100.0, 2200.0)),
            new Results.SoakRow(25, "after OpenTelemetry", 10, 1, 2, stats())));

    Map<Config, Stats> heap = new EnumMap<>(Config.class);
    heap.put(Config.NONE, stats(60_000_000.0, 61_000_000.0));
    heap.put(Config.RESYNC_METER, stats(62_500_000.0));
    results.heap(
        heap, 100_000,
        List.of(new HeapProbe.ClassRow("dev.resyncmeter.collector.QueueTracker", 3, 480)),
        List.of(new Results.HeapGrowth("java.util.HashMap$Node", 640_000, 20_000, 3_200_000, 3_840_000)));

    results.check("micro handlerNoopIdle: GC profiler reported B/op", true, "");
    results.check("e2e completed", false, "java.lang.IllegalStateException: no | pipe\nsecond line");
    results.duration("micro", 431.2);
    results.duration("e2e", 1024.0);
    return results;
  }

  static Stats stats(Double... samples) {
    return Stats.of(List.of(samples));
  }

  private static Results.QueueRow queueRow(QueueWaveRuns.Variant variant, Stats wall, Stats cpu) {
    return new Results.QueueRow(variant.key(), variant.title(), wall, cpu);
  }

  private static Map<Config, Stats> byConfig(Stats... stats) {
    Map<Config, Stats> map = new EnumMap<>(Config.class);
    for (int i = 0; i < stats.length; i++) {
      map.put(Config.values()[i], stats[i]);
    }
    return map;
  }

  private static String resource(String name) throws IOException {
    try (InputStream in = ResultFilesTest.class.getResourceAsStream(name)) {
      assertThat(in).as(name).isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
