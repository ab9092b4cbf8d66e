package dev.resyncmeter.bench;

import dev.resyncmeter.bench.PeerAgents.Config;
import dev.resyncmeter.bench.PeerAgents.Setup;
import dev.resyncmeter.testkit.ForkedJvm;
import dev.resyncmeter.testkit.Scrape;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The parent side of the end-to-end benchmark: runs {@link ResyncPipeline} (or {@link Fabric8Wave}, the
 * same protocol) in a forked JVM per configuration, reads its waves, checks resync-meter's exported
 * counts against the program's own, and has the client-java program measure its live heap once every
 * endpoint has been scraped.
 */
final class PipelineRuns {

  /**
   * The e2e programs: the client-java wave and the fabric8 informer wave, with the resync-meter parts
   * each goes through (each must be on in a run with resync-meter).
   */
  enum Program {
    CLIENT_JAVA("client-java", ResyncPipeline.class, List.of("clientjava-informer", "clientjava-workqueue", "clientjava-controller", "clientjava-requests")),
    FABRIC8("fabric8 informer", Fabric8Wave.class, List.of("fabric8-informer"));

    /** How the console and the results name its wave. */
    final String wave;
    final Class<?> main;
    final List<String> parts;

    Program(String wave, Class<?> main, List<String> parts) {
      this.wave = wave;
      this.main = main;
      this.parts = parts;
    }
  }

  /** Sizes of one e2e run. */
  record Settings(int objects, long resyncMillis, int warmupWaves, int waves, int runs, long waveTimeoutSeconds) {
    List<String> args() {
      return List.of(
          Integer.toString(objects), Long.toString(resyncMillis), Integer.toString(warmupWaves), Integer.toString(waves),
          Long.toString(waveTimeoutSeconds));
    }

    /** Everything a run may take: its waves, each with its timeout and a few ticks, plus start-up. */
    Duration bound() {
      return Duration.ofSeconds(60 + (1L + warmupWaves + waves) * (waveTimeoutSeconds + 3 * resyncMillis / 1000 + 1));
    }

    Map<String, Object> json() {
      return OrderedMap.of(
          "objects", objects, "resyncPeriodMillis", resyncMillis, "warmupWaves", warmupWaves, "measuredWaves", waves, "runsPerConfiguration", runs,
          "workers", 2, "heap", "-Xms2g -Xmx2g");
    }
  }

  /** One measured wave as the program reported it. */
  record Wave(
      double waveMillis, double handlerCallsPerSecond, double reconcilesPerSecond, double listenerCpuNanosPerCall, double processCpuMillis,
      double threadsCpuNanos) {}

  /** One run: its measured waves, the program's counts, its live heap and resync-meter's own classes there. */
  record Run(
      Config config, List<Wave> waves, Map<String, Long> counts, long liveHeapBytes, List<HeapProbe.ClassRow> ownClasses,
      Map<String, HeapProbe.ClassRow> largeRows) {}

  static final List<String> JVM_OPTIONS = List.of("-Xms2g", "-Xmx2g", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");

  private final Settings settings;
  private final Results results;
  private final Program program;

  PipelineRuns(Settings settings, Results results) {
    this(settings, results, Program.CLIENT_JAVA);
  }

  PipelineRuns(Settings settings, Results results, Program program) {
    this.settings = settings;
    this.results = results;
    this.program = program;
  }

  /** Runs the program once; {@code extraOptions} such as a JFR recording go before the agents. */
  Run run(Setup setup, List<String> extraOptions, String name) throws Exception {
    return run(setup, extraOptions, name, true);
  }

  /**
   * Runs the program once; without {@code measureHeap} it exits after its waves (a deep cache's heap
   * histogram takes long). The fabric8 program measures no heap: pass false.
   */
  Run run(Setup setup, List<String> extraOptions, String name, boolean measureHeap) throws Exception {
    List<String> options = new ArrayList<>(JVM_OPTIONS);
    options.addAll(extraOptions);
    options.addAll(setup.options());
    try (ForkedJvm jvm = ForkedJvm.startMain(options, program.main, settings.args(), ForkedJvm.ANY_AGENT_VARIABLES)) {
      String url = setup.peerMetricsUrl();
      if (setup.config() == Config.RESYNC_METER) {
        url = jvm.metricsUrl(Duration.ofSeconds(60));
      }
      String end = jvm.awaitStdout(line -> line.equals("WAVES DONE") || line.startsWith("FAILED "), settings.bound());
      if (end.startsWith("FAILED ")) {
        throw new IllegalStateException(name + ": the e2e program failed: " + end + "\n" + jvm.transcript());
      }
      List<Wave> waves = new ArrayList<>();
      Map<String, Long> counts = new LinkedHashMap<>();
      for (String line : jvm.stdout()) {
        if (line.startsWith("wave ") && line.contains(" measured ")) {
          waves.add(wave(keyValues(line)));
        } else if (line.startsWith("counts ")) {
          counts.putAll(keyValues(line));
        }
      }
      if (url != null) {
        // Every agent is scraped once before the heap is measured: an endpoint's state after its
        // first scrape is what it keeps in production.
        Scrape scrape = Scrape.awaitOk(url, 40);
        results.check(name + ": " + setup.config().key + " served its metrics", true, url);
        if (setup.config() == Config.RESYNC_METER) {
          checkExactCounts(name, url, scrape, counts);
        }
      }
      long heap = -1;
      if (measureHeap) {
        jvm.send("heap");
        jvm.awaitStdout("HEAP DONE"::equals, Duration.ofSeconds(120));
      }
      List<HeapProbe.ClassRow> own = new ArrayList<>();
      Map<String, HeapProbe.ClassRow> large = new LinkedHashMap<>();
      for (String line : jvm.stdout()) {
        String[] parts = line.split(" ");
        if (line.startsWith("heap total ")) {
          heap = Long.parseLong(parts[2]);
        } else if (line.startsWith("heap own ") || line.startsWith("heap row ")) {
          HeapProbe.ClassRow row = new HeapProbe.ClassRow(parts[4], Long.parseLong(parts[3]), Long.parseLong(parts[2]));
          if (parts[1].equals("own")) {
            own.add(row);
          } else {
            large.put(row.name(), row);
          }
        }
      }
      jvm.closeInput();
      int exit = jvm.waitFor(Duration.ofSeconds(60));
      results.check(name + ": the e2e program completed", exit == 0, "exit " + exit + ", " + waves.size() + " measured waves");
      if (exit != 0) {
        throw new IllegalStateException("the e2e program exited " + exit + "\n" + jvm.transcript());
      }
      return new Run(setup.config(), waves, counts, heap, own, large);
    }
  }

  /**
   * resync-meter's counters must equal the program's own: update and add notifications, reconciles
   * (client-java's controller; the fabric8 wave's plain queue and workers are not instrumented) and
   * resync ticks. Read again for a short while: the last handler call's exit advice may still run
   * when the program reports its waves.
   */
  private void checkExactCounts(String name, String url, Scrape first, Map<String, Long> counts) throws Exception {
    List<AgentCounts.Expected> expected = new ArrayList<>();
    expected.add(new AgentCounts.Expected("informer_notifications_total{type=\"update\"}", counts.get("updates"), "informer_notifications_total", "type=\"update\""));
    expected.add(new AgentCounts.Expected("informer_notifications_total{type=\"add\"}", counts.get("adds"), "informer_notifications_total", "type=\"add\""));
    if (program == Program.CLIENT_JAVA) {
      expected.add(new AgentCounts.Expected("controller_reconcile_total", counts.get("reconciles"), "controller_reconcile_total"));
    }
    expected.add(new AgentCounts.Expected("informer_resyncs_total", counts.get("resyncs"), "informer_resyncs_total"));
    AgentCounts.Reading reading = AgentCounts.await(url, first, expected);
    for (AgentCounts.Count count : reading.counts()) {
      results.check(
          name + ": e2e exact count " + count.series(), count.matches(), String.format("agent %.0f, program %.0f", count.agent(), count.expected()));
    }
    Scrape scrape = reading.scrape();
    double errors = scrape.sum("resync_meter_errors_total");
    results.check(name + ": resync-meter counted no fault of its own", errors == 0, "resync_meter_errors_total " + errors);
    // The program's class path holds client-java, fabric8 and JOSDK: each part found must be on.
    Map<String, Double> parts = new TreeMap<>();
    scrape.series().forEach((series, value) -> {
      if (series.startsWith("resync_meter_instrumentation_active{")) {
        parts.put(series.substring(series.indexOf('{')), value);
      }
    });
    // the parts this program runs through are there, and no part of any library is off
    boolean allOn =
        program.parts.stream().allMatch(p -> parts.containsKey("{component=\"" + p + "\"}")) && parts.values().stream().allMatch(v -> v == 1.0);
    results.check(name + ": every instrumentation part on", allOn, "resync_meter_instrumentation_active " + parts);
  }

  private Wave wave(Map<String, Long> values) {
    double waveNanos = values.get("waveNanos");
    double handlerNanos = values.get("handlerNanos");
    return new Wave(
        waveNanos / 1e6,
        settings.objects / (handlerNanos / 1e9),
        settings.objects / (waveNanos / 1e9),
        // -1: the program cannot tell (the fabric8 wave's deliveries hop between threads)
        values.get("listenerCpuNanos") < 0 ? Double.NaN : (double) values.get("listenerCpuNanos") / settings.objects,
        values.get("processCpuNanos") / 1e6,
        values.get("threadsCpuNanos"));
  }

  static Map<String, Long> keyValues(String line) {
    Map<String, Long> values = new LinkedHashMap<>();
    for (String part : line.split(" ")) {
      int eq = part.indexOf('=');
      if (eq > 0) {
        values.put(part.substring(0, eq), Long.parseLong(part.substring(eq + 1)));
      }
    }
    return values;
  }

  static Path jfrFile(Path resultsDir, String name, PeerAgents.Config config) {
    return resultsDir.resolve(name + "-e2e-" + config.key + ".jfr").toAbsolutePath();
  }
}
