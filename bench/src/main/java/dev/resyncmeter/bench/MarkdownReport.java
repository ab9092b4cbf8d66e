package dev.resyncmeter.bench;

import static dev.resyncmeter.bench.Figures.fmt;
import static dev.resyncmeter.bench.Results.added;

import dev.resyncmeter.bench.PeerAgents.Config;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** A run's results as a Markdown report: one table per benchmark, the targets met or missed, the checks. */
final class MarkdownReport {

  private final Results results;
  private final StringBuilder md = new StringBuilder();

  private MarkdownReport(Results results) {
    this.results = results;
  }

  static String of(Results results) {
    MarkdownReport report = new MarkdownReport(results);
    // Each part writes nothing when its section did not run.
    report.head();
    report.targets();
    report.micro();
    report.e2e();
    report.queueWave();
    report.depth();
    report.startup();
    report.soak();
    report.heap();
    report.checks();
    return report.md.toString();
  }

  private void head() {
    md.append("# resync-meter: what the agent costs its host\n\n");
    md.append("| | |\n|---|---|\n");
    Map<String, Object> meta = results.meta();
    for (String key : List.of("date", "label", "mode", "machine", "jvm", "agentJar", "command")) {
      if (meta.get(key) != null) {
        md.append("| ").append(key).append(" | ").append(cell(meta.get(key))).append(" |\n");
      }
    }
    md.append("| result | ").append(results.passed() ? "all checks passed" : "**checks failed** (see Checks)").append(" |\n\n");
  }

  private void targets() {
    List<Targets.Target> targets = Targets.of(results);
    if (targets.isEmpty()) {
      return;
    }
    md.append("## Targets\n\n| section | target | budget | value | met |\n|---|---|---|---|---|\n");
    for (Targets.Target t : targets) {
      md.append("| ").append(t.section()).append(" | ").append(t.name()).append(" | ").append(t.budget()).append(" | ").append(t.value())
          .append(" | ").append(t.met() ? "met" : "**missed**").append(" |\n");
    }
    md.append('\n');
  }

  private void micro() {
    if (results.micro() == null) {
      return;
    }
    md.append("## Micro-benchmarks (JMH, real client-java classes)\n\n").append(cell(results.microSettings())).append("\n\n");
    md.append("| benchmark | per op | configuration | ns/op median | spread (min–max) | ratio to no agent | B/op | added ns/op | added B/op |\n");
    md.append("|---|---|---|---|---|---|---|---|---|\n");
    for (Results.MicroRow row : results.micro()) {
      for (Config config : row.nanos().keySet()) {
        Stats ns = row.nanos().get(config);
        Stats bytes = row.bytes().get(config);
        boolean agent = config == Config.RESYNC_METER;
        md.append("| ").append(row.name()).append(" | ").append(row.perOp()).append(" | ").append(config.key).append(" | ").append(fmt(ns.median()))
            .append(" | ").append(fmt(ns.min())).append("–").append(fmt(ns.max())).append(" | ").append(ratio(ns, row.nanos().get(Config.NONE)))
            .append(" | ").append(bytes == null ? "" : fmt(bytes.median())).append(" | ").append(agent ? fmt(added(row.nanos())) : "")
            .append(" | ").append(agent ? fmt(added(row.bytes())) : "").append(" |\n");
      }
    }
    md.append('\n');
  }

  private void e2e() {
    if (results.e2e() == null) {
      return;
    }
    md.append("## End-to-end resync waves\n\n").append(cell(results.e2eSettings())).append("\n\n");
    PooledRatio pooledWave = results.pooledWave();
    if (pooledWave != null) {
      md.append("All measured waves pooled (the interval resamples whole rounds, ").append(PooledRatio.RESAMPLES).append(" times): wave time ratio **")
          .append(pooledWave.text()).append("**, process CPU per wave ratio of the means **").append(results.pooledCpu().text())
          .append("**. The target is met or missed by the pooled ratio; 1.05 and 1.10 are told apart only when the interval is narrower\n")
          .append("than 0.05.\n\n");
    }
    Results.Fabric8Waves fabric8 = results.fabric8Waves();
    boolean fabric8Ratios = fabric8 != null && !fabric8.pooledWaves().isEmpty();
    if (!results.pooledPeers().isEmpty() || fabric8Ratios) {
      md.append("The same wave time ratio for the peers, over the rounds they ran in, and for the fabric8 informer wave:\n\n")
          .append("| wave | configuration | ratio to no agent |\n|---|---|---|\n");
      if (pooledWave != null) {
        md.append("| client-java | ").append(Config.RESYNC_METER.key).append(" | ").append(pooledWave.text()).append(" |\n");
      }
      inPeerRounds("client-java");
      results.pooledPeers().forEach((config, ratio) -> md.append("| client-java | ").append(config.key).append(" | ").append(ratio.text()).append(" |\n"));
      if (fabric8Ratios) {
        fabric8.pooledWaves().forEach(
            (config, ratio) -> {
              md.append("| fabric8 informer | ").append(config.key).append(" | ").append(ratio.text()).append(" |\n");
              if (config == Config.RESYNC_METER) {
                inPeerRounds("fabric8 informer");
              }
            });
      }
      md.append('\n');
    }
    md.append("Medians over runs of each run's median wave; spread is min–max of the run medians.\n\n");
    Stats waveRatios = results.waveRatios();
    Stats cpuRatios = results.cpuRatios();
    if (waveRatios != null) {
      md.append("Paired by round (resync-meter's run over the no-agent run of the same round, ").append(waveRatios.samples().size())
          .append(" rounds): wave time ratio **").append(fmt(waveRatios.median())).append("** (").append(range(waveRatios)).append(withInterval(waveRatios))
          .append("), process CPU per wave ratio **").append(fmt(cpuRatios.median())).append("** (").append(range(cpuRatios)).append(withInterval(cpuRatios))
          .append("): one ratio per round, each of two runs' medians.\n\n");
    }
    md.append("| configuration | wave ms | spread | ratio to no agent | handler calls/s | reconciles/s | listener CPU ns/handler call | spread | process CPU ms/wave | spread | ratio |\n");
    md.append("|---|---|---|---|---|---|---|---|---|---|---|\n");
    Results.E2eRow none = results.e2eRow(Config.NONE);
    for (Results.E2eRow row : results.e2e()) {
      md.append("| ").append(row.config().key).append(" | ").append(fmt(row.waveMillis().median())).append(" | ").append(range(row.waveMillis()))
          .append(" | ").append(none == null ? "" : ratio(row.waveMillis(), none.waveMillis())).append(" | ").append(fmt(row.handlerCallsPerSecond().median()))
          .append(" | ").append(fmt(row.reconcilesPerSecond().median())).append(" | ").append(fmt(row.listenerCpuNanosPerCall().median())).append(" | ")
          .append(range(row.listenerCpuNanosPerCall())).append(" | ").append(fmt(row.processCpuMillisPerWave().median())).append(" | ")
          .append(range(row.processCpuMillisPerWave())).append(" | ").append(none == null ? "" : ratio(row.processCpuMillisPerWave(), none.processCpuMillisPerWave()))
          .append(" |\n");
    }
    md.append('\n');
    if (fabric8 != null) {
      fabric8(fabric8);
    }
  }

  /** resync-meter's row over the peers' rounds only, when they ran in fewer: the one to read theirs against. */
  private void inPeerRounds(String wave) {
    PooledRatio ratio = results.inPeerRounds().get(wave);
    if (ratio != null) {
      md.append("| ").append(wave).append(" | ").append(Config.RESYNC_METER.key).append(", in the peers' rounds | ").append(ratio.text()).append(" |\n");
    }
  }

  private void fabric8(Results.Fabric8Waves fabric8) {
    md.append("### fabric8 informer wave\n\n").append(cell(fabric8.settings())).append("\n\n");
    if (fabric8.pooledCpu() != null) {
      md.append("resync-meter, all measured waves pooled: wave time ratio **").append(fabric8.pooledWaves().get(Config.RESYNC_METER).text())
          .append("**, process CPU per wave ratio of the means **").append(fabric8.pooledCpu().text()).append("**.\n\n");
    }
    md.append("Medians over runs of each run's median wave; spread is min–max of the run medians. No listener CPU: fabric8 delivers each notification on a pool thread.\n\n");
    md.append("| configuration | wave ms | spread | ratio to no agent | handler calls/s | reconciles/s | process CPU ms/wave | spread | ratio |\n");
    md.append("|---|---|---|---|---|---|---|---|---|\n");
    Results.E2eRow none = fabric8.rows().stream().filter(r -> r.config() == Config.NONE).findFirst().orElse(null);
    for (Results.E2eRow row : fabric8.rows()) {
      md.append("| ").append(row.config().key).append(" | ").append(fmt(row.waveMillis().median())).append(" | ").append(range(row.waveMillis()))
          .append(" | ").append(none == null ? "" : ratio(row.waveMillis(), none.waveMillis())).append(" | ").append(fmt(row.handlerCallsPerSecond().median()))
          .append(" | ").append(fmt(row.reconcilesPerSecond().median())).append(" | ").append(fmt(row.processCpuMillisPerWave().median())).append(" | ")
          .append(range(row.processCpuMillisPerWave())).append(" | ").append(none == null ? "" : ratio(row.processCpuMillisPerWave(), none.processCpuMillisPerWave()))
          .append(" |\n");
    }
    md.append('\n');
  }

  private void depth() {
    if (results.depthRows() == null) {
      return;
    }
    md.append("## Queue depth\n\n").append(cell(results.depthSettings())).append("\n\n");
    md.append("The e2e program's client-java resync wave at each depth, runs without an agent and with resync-meter alternated in pairs. ")
        .append("CPU per item: every Java thread's (ThreadMXBean, to the nanosecond; not GC or JIT threads), from the resync tick to the wave's last reconcile, each run's median wave over its objects. ")
        .append("Added: per pair, resync-meter's run minus the no-agent run; the interval is a bootstrap of their median over pairs. ")
        .append("An agent whose cost per item does not grow with the queue's depth has a flatness ratio near 1.\n\n");
    md.append(DepthTable.markdown(results.depthRows())).append('\n');
  }

  private void queueWave() {
    if (results.queueRows() == null) {
      return;
    }
    md.append("## Queue-only waves\n\n").append(cell(results.queueSettings())).append("\n\n");
    md.append("The wave's queue half alone: the main thread adds every key to a controller's rate-limiting queue, two workers reconcile them. ")
        .append("Medians over runs of each run's median wave; spread is min–max of the run medians. ")
        .append("The last variant has no agent: the JDK's collection methods that the controller's hot path shares were first called with other types, as an agent's start calls them.\n\n");
    md.append("| variant | wave ms | spread | ratio to no agent | process CPU ms/wave | spread | ratio |\n|---|---|---|---|---|---|---|\n");
    List<Results.QueueRow> rows = results.queueRows();
    Stats none = rows.get(0).wallMillis();
    Stats noneCpu = rows.get(0).cpuMillis();
    for (Results.QueueRow row : rows) {
      md.append("| ").append(row.title()).append(" | ").append(fmt(row.wallMillis().median())).append(" | ").append(range(row.wallMillis()))
          .append(" | ").append(ratio(row.wallMillis(), none)).append(" | ").append(fmt(row.cpuMillis().median())).append(" | ")
          .append(range(row.cpuMillis())).append(" | ").append(ratio(row.cpuMillis(), noneCpu)).append(" |\n");
    }
    md.append('\n');
  }

  private void startup() {
    if (results.startup() == null) {
      return;
    }
    md.append("## Start-up\n\n| probe | configuration | median ms | spread (min–max) | ratio to no agent | added ms |\n|---|---|---|---|---|---|\n");
    results.startup().forEach(
        (probe, byConfig) ->
            byConfig.forEach(
                (config, stats) -> {
                  Stats none = byConfig.get(Config.NONE);
                  md.append("| ").append(probe).append(" | ").append(config.key).append(" | ").append(fmt(stats.median())).append(" | ")
                      .append(range(stats)).append(" | ").append(ratio(stats, none)).append(" | ")
                      .append(none == null ? "" : fmt(stats.median() - none.median())).append(" |\n");
                }));
    md.append('\n');
  }

  private void soak() {
    if (results.soak() == null) {
      return;
    }
    md.append("## Start-up soak\n\nresync-meter started alone and beside the OpenTelemetry agent, loaded after and before it, the three alternating. ")
        .append("A start hung without a first reconcile within ").append(StartupProbe.HUNG_AFTER.toSeconds())
        .append(" s; it warned when resync-meter printed a line other than INFO, or the JVM a warning that the OpenTelemetry agent alone does not cause.\n\n")
        .append("| Java | resync-meter | starts | hung | warned | first reconcile median ms | spread (min–max) |\n|---|---|---|---|---|---|---|\n");
    for (Results.SoakRow row : results.soak()) {
      md.append("| ").append(row.java()).append(" | ").append(row.order()).append(" | ").append(row.starts()).append(" | ").append(row.hung())
          .append(" | ").append(row.warned()).append(" | ").append(fmt(row.firstReconcileMillis().median())).append(" | ")
          .append(range(row.firstReconcileMillis())).append(" |\n");
    }
    md.append('\n');
  }

  private void heap() {
    Map<Config, Stats> heap = results.heap();
    if (heap == null) {
      return;
    }
    md.append("## Retained heap at ").append(String.format(Locale.ROOT, "%,d", results.heapObjects())).append(" cached objects\n\n");
    md.append("Live heap (`GC.class_histogram` Total, after a full GC) at the end of each e2e run; medians over runs.\n\n");
    md.append("| configuration | live heap MiB | spread (min–max) | added MiB |\n|---|---|---|---|\n");
    Stats none = heap.get(Config.NONE);
    heap.forEach(
        (config, stats) ->
            md.append("| ").append(config.key).append(" | ").append(fmt(stats.median() / Results.MIB)).append(" | ").append(fmt(stats.min() / Results.MIB)).append("–")
                .append(fmt(stats.max() / Results.MIB)).append(" | ").append(none == null ? "" : fmt((stats.median() - none.median()) / Results.MIB)).append(" |\n"));
    List<HeapProbe.ClassRow> topClasses = results.heapTopClasses();
    if (topClasses != null && !topClasses.isEmpty()) {
      md.append("\nLargest dev.resyncmeter classes on the heap (resync-meter run):\n\n| class | instances | bytes |\n|---|---|---|\n");
      for (HeapProbe.ClassRow row : topClasses) {
        md.append("| `").append(row.name()).append("` | ").append(row.instances()).append(" | ").append(row.bytes()).append(" |\n");
      }
    }
    List<Results.HeapGrowth> growth = results.heapGrowth();
    if (growth != null && !growth.isEmpty()) {
      md.append("\nClasses that grew most with resync-meter (first resync-meter run against first no-agent run, rows ≥ ")
          .append(HeapProbe.REPORTED_ROW_BYTES / 1024).append(" KiB):\n\n| class | added bytes | added instances | no agent | resync-meter |\n|---|---|---|---|---|\n");
      for (Results.HeapGrowth row : growth) {
        md.append("| `").append(row.name()).append("` | ").append(row.addedBytes()).append(" | ").append(row.addedInstances()).append(" | ")
            .append(row.noAgentBytes()).append(" | ").append(row.resyncMeterBytes()).append(" |\n");
      }
    }
    md.append('\n');
  }

  private void checks() {
    md.append("## Checks\n\n| check | passed | detail |\n|---|---|---|\n");
    for (Results.Check check : results.checks()) {
      md.append("| ").append(check.name()).append(" | ").append(check.passed() ? "yes" : "**no**").append(" | ").append(cell(check.detail())).append(" |\n");
    }
    md.append("\nDurations (s): ").append(cell(results.durations())).append('\n');
  }

  /** The interval in words: "93 % interval of the median 0.91–1.26", or nothing when there is none. */
  static String medianIntervalText(Stats stats) {
    double[] interval = stats.medianInterval();
    return interval == null ? "" : Math.round(interval[2] * 100) + " % interval of the median " + fmt(interval[0]) + "–" + fmt(interval[1]);
  }

  private static String withInterval(Stats stats) {
    String interval = medianIntervalText(stats);
    return interval.isEmpty() ? "" : "; " + interval;
  }

  private static String ratio(Stats value, Stats none) {
    return none == null || value == null ? "" : String.format(Locale.ROOT, "%.3f", value.median() / none.median());
  }

  private static String range(Stats stats) {
    return fmt(stats.min()) + "–" + fmt(stats.max());
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
}
