package dev.resyncmeter.bench;

import dev.resyncmeter.bench.PeerAgents.Config;
import dev.resyncmeter.testkit.Jdks;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The start-up section: the probes for every configuration, configurations alternating within each
 * repetition: {@code java -version} on this JVM, the first reconcile on each of {@link #STARTUP_JDKS}
 * found here, of the sample controller alone and with a handler class of the application's own. A first reconcile that never comes, or a warning of resync-meter's or the JVM's in a
 * resync-meter start, fails the section's checks.
 */
record StartupSection(Sizes sizes, PeerAgents peers, Results results) {

  /** The JDKs the start-up probes and the soak run on, each by its feature version. */
  static final List<Integer> STARTUP_JDKS = List.of(17, 25);

  /**
   * Repetitions of each probe per configuration; {@code allJdks}: the first reconcile on every one of
   * {@link #STARTUP_JDKS} found here, else only on this JVM's JDK (the smoke checks that the probe runs).
   */
  record Sizes(int versionRepetitions, int reconcileRepetitions, boolean allJdks) {}

  void run() throws Exception {
    Map<String, Map<Config, List<Double>>> samples = new LinkedHashMap<>();
    Map<Config, List<Double>> version = Results.ordered();
    for (int i = 0; i < sizes.versionRepetitions(); i++) {
      for (Config config : PeerAgents.rotated(i)) {
        version.computeIfAbsent(config, k -> new ArrayList<>()).add(StartupProbe.javaVersionNanos(peers.setup(config).options()) / 1e6);
      }
    }
    samples.put("java -version", version);
    List<String> warnings = new ArrayList<>();
    Map<Integer, Path> jdks = sizes.allJdks() ? jdks("start-up probe") : Map.of(Runtime.version().feature(), Path.of(System.getProperty("java.home")));
    for (Map.Entry<Integer, Path> jdk : jdks.entrySet()) {
      int feature = jdk.getKey();
      Map<Config, List<Double>> reconcile = Results.ordered();
      Map<Config, List<Double>> ownHandler = Results.ordered();
      for (int i = 0; i < sizes.reconcileRepetitions(); i++) {
        for (Config config : PeerAgents.rotated(i)) {
          // the two variants alternate too, each start of one followed by one of the other
          for (boolean own : new boolean[] {i % 2 == 1, i % 2 == 0}) {
            StartupProbe.Start start = StartupProbe.firstReconcile(jdk.getValue(), peers.setup(config).options(), own);
            if (start.hung()) {
              throw new IllegalStateException(
                  "no first reconcile within " + StartupProbe.HUNG_AFTER + " on Java " + feature + " with " + config.key + (own ? " (own handler)" : "") + "\n" + start.transcript());
            }
            if (config == Config.RESYNC_METER) {
              warnings.addAll(start.warnings());
            }
            (own ? ownHandler : reconcile).computeIfAbsent(config, k -> new ArrayList<>()).add(start.millis());
          }
        }
      }
      samples.put(firstReconcileProbe(feature), reconcile);
      samples.put(firstReconcileOwnHandlerProbe(feature), ownHandler);
    }
    Map<String, Map<Config, Stats>> probes = new LinkedHashMap<>();
    for (Map.Entry<String, Map<Config, List<Double>>> probe : samples.entrySet()) {
      Map<Config, Stats> stats = Results.ordered();
      probe.getValue().forEach((config, values) -> stats.put(config, Stats.of(values)));
      probes.put(probe.getKey(), stats);
      for (Config config : Config.values()) {
        System.out.println(ConsoleLines.startupProbe(probe.getKey(), config.key, stats.get(config).median()));
      }
    }
    results.check(
        "start-up probes completed", true,
        sizes.versionRepetitions() + " x java -version, " + sizes.reconcileRepetitions() + " x first reconcile per configuration and JDK");
    results.check("no resync-meter start printed a warning", warnings.isEmpty(), warnings.isEmpty() ? "" : String.join("\n", warnings));
    results.startup(probes);
  }

  static Sizes sizes(Mode mode) {
    return switch (mode) {
      case SMOKE -> new Sizes(1, 1, false);
      case QUICK -> new Sizes(1, 1, true);
      case FULL -> new Sizes(10, 10, true);
    };
  }

  static String firstReconcileProbe(int feature) {
    return "first reconcile (Java " + feature + ")";
  }

  /** The probe whose controller also has a handler class of the application's own (StartupProbe.OWN_HANDLER). */
  static String firstReconcileOwnHandlerProbe(int feature) {
    return "first reconcile, own handler class (Java " + feature + ")";
  }

  /** The homes of the {@link #STARTUP_JDKS} found here, by feature version; says which are missing, for {@code what}. */
  static Map<Integer, Path> jdks(String what) {
    Map<Integer, Path> homes = new LinkedHashMap<>();
    for (int feature : STARTUP_JDKS) {
      Path home = Jdks.find(feature);
      if (home == null) {
        System.out.println(ConsoleLines.noJdk(feature, what));
      } else {
        homes.put(feature, home);
      }
    }
    return homes;
  }
}
