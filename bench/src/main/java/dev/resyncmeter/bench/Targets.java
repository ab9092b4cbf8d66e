package dev.resyncmeter.bench;

import static dev.resyncmeter.bench.Figures.fmt;
import static dev.resyncmeter.bench.Results.added;

import dev.resyncmeter.bench.PeerAgents.Config;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The goals a run's numbers are compared with, and whether each was met. */
final class Targets {

  /** The wave with resync-meter over the wave without, paired by round (issue 30: within 5 %). */
  static final double WAVE_RATIO_BUDGET = 1.05;
  /** What resync-meter may add to a start, on 2 cores, on each JDK. */
  static final double STARTUP_BUDGET_MS = 150;
  static final double HEAP_BUDGET_MIB = 16;

  /** A goal the numbers are compared with; missing one is reported, never a failure of the run. */
  record Target(String section, String name, String budget, String value, boolean met) {}

  private Targets() {}

  static List<Target> of(Results results) {
    List<Target> targets = new ArrayList<>();
    if (results.micro() != null) {
      micro(results, targets);
    }
    if (results.e2e() != null) {
      e2e(results, targets);
    }
    if (results.startup() != null) {
      startup(results.startup(), targets);
    }
    Map<Config, Stats> heap = results.heap();
    if (heap != null && heap.containsKey(Config.NONE) && heap.containsKey(Config.RESYNC_METER)) {
      heap(heap, targets);
    }
    return targets;
  }

  private static void micro(Results results, List<Target> targets) {
    for (Results.MicroRow row : results.micro()) {
      double added = added(row.nanos());
      if (!Double.isNaN(row.budgetNs())) {
        targets.add(new Target("micro", row.name() + ": ns/op added", "≤ " + fmt(row.budgetNs()), fmt(added), added <= row.budgetNs()));
      }
      double bytes = added(row.bytes());
      // B/op is a rate measurement: below half a byte per op is no allocation at all.
      targets.add(new Target("micro", row.name() + ": B/op added", "0", fmt(bytes), bytes < 0.5));
    }
  }

  private static void e2e(Results results, List<Target> targets) {
    Results.E2eRow none = results.e2eRow(Config.NONE);
    Results.E2eRow agent = results.e2eRow(Config.RESYNC_METER);
    if (none == null || agent == null) {
      return;
    }
    PooledRatio pooled = results.pooledWave();
    if (pooled != null) {
      targets.add(new Target("e2e", "wave time ratio to no agent, all measured waves pooled", "≤ " + WAVE_RATIO_BUDGET, pooled.text(), pooled.value() <= WAVE_RATIO_BUDGET));
      targets.add(
          new Target(
              "e2e", "the wave ratio's interval tells 1.05 from 1.10", "narrower than 0.05", fmt(pooled.high() - pooled.low()),
              pooled.tellsApart(WAVE_RATIO_BUDGET, 1.10)));
    } else {
      Stats paired = results.waveRatios();
      double ratio = paired != null ? paired.median() : agent.waveMillis().median() / none.waveMillis().median();
      targets.add(new Target("e2e", "wave time ratio to no agent", "≤ " + WAVE_RATIO_BUDGET, fmt(ratio), ratio <= WAVE_RATIO_BUDGET));
    }
    for (Results.E2eRow peer : results.e2e()) {
      if (peer.config().isPeer()) {
        double ours = agent.processCpuMillisPerWave().median() - none.processCpuMillisPerWave().median();
        double theirs = peer.processCpuMillisPerWave().median() - none.processCpuMillisPerWave().median();
        targets.add(new Target("e2e", "process CPU per wave added (ms) lower than " + peer.config().key, "< " + fmt(theirs), fmt(ours), ours < theirs));
      }
    }
  }

  private static void startup(Map<String, Map<Config, Stats>> probes, List<Target> targets) {
    probes.forEach(
        (probe, byConfig) -> {
          if (byConfig.containsKey(Config.NONE) && byConfig.containsKey(Config.RESYNC_METER)) {
            double ours = added(byConfig);
            targets.add(new Target("startup", probe + ": added (ms)", "≤ " + fmt(STARTUP_BUDGET_MS), fmt(ours), ours <= STARTUP_BUDGET_MS));
            for (Config peer : byConfig.keySet()) {
              if (peer.isPeer()) {
                double theirs = byConfig.get(peer).median() - byConfig.get(Config.NONE).median();
                targets.add(new Target("startup", probe + ": added lower than " + peer.key, "< " + fmt(theirs), fmt(ours), ours < theirs));
              }
            }
          }
        });
  }

  private static void heap(Map<Config, Stats> heap, List<Target> targets) {
    double ours = added(heap) / Results.MIB;
    targets.add(new Target("heap", "retained heap added (MiB)", "≤ " + fmt(HEAP_BUDGET_MIB), fmt(ours), ours <= HEAP_BUDGET_MIB));
    for (Config peer : heap.keySet()) {
      if (peer.isPeer()) {
        double theirs = (heap.get(peer).median() - heap.get(Config.NONE).median()) / Results.MIB;
        targets.add(new Target("heap", "retained heap added lower than " + peer.key, "< " + fmt(theirs), fmt(ours), ours < theirs));
      }
    }
  }
}
