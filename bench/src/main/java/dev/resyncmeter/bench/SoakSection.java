package dev.resyncmeter.bench;

import dev.resyncmeter.bench.PeerAgents.Config;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The soak: many starts of resync-meter alone and beside the OpenTelemetry agent, loaded before and
 * after it, on each JDK, the three alternating. Counts the starts that hung (no first reconcile within
 * {@link StartupProbe#HUNG_AFTER}) and those that printed a warning the OpenTelemetry agent does not
 * print alone. Not part of a smoke run.
 */
record SoakSection(int repetitions, PeerAgents peers, Results results) {

  void run() throws Exception {
    List<Results.SoakRow> rows = new ArrayList<>();
    List<String> found = new ArrayList<>();
    for (Map.Entry<Integer, Path> jdk : StartupSection.jdks("soak").entrySet()) {
      int feature = jdk.getKey();
      Path home = jdk.getValue();
      List<String> otel = peers.setup(Config.OPENTELEMETRY).options();
      // What the OpenTelemetry agent makes the JVM print by itself (appending to the boot class path,
      // it has the JVM warn that class sharing is limited) is not resync-meter's.
      List<String> otelsOwn = StartupProbe.firstReconcile(home, otel).warnings();
      Map<String, List<String>> orders = new LinkedHashMap<>();
      orders.put("alone", List.of(peers.resyncMeterOption()));
      orders.put("after OpenTelemetry", concat(otel, List.of(peers.resyncMeterOption())));
      orders.put("before OpenTelemetry", concat(List.of(peers.resyncMeterOption()), otel));
      Map<String, List<StartupProbe.Start>> starts = new LinkedHashMap<>();
      List<String> names = new ArrayList<>(orders.keySet());
      for (int i = 0; i < repetitions; i++) {
        for (int j = 0; j < names.size(); j++) {
          String order = names.get((i + j) % names.size());
          StartupProbe.Start start = StartupProbe.firstReconcile(home, orders.get(order)).without(otelsOwn);
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
      System.out.println(ConsoleLines.soak(row.java(), row.order(), row.starts(), row.hung(), row.warned()));
    }
    results.check(
        "start-up soak: no start hung or printed a warning", found.isEmpty(),
        found.isEmpty() ? rows.stream().mapToInt(Results.SoakRow::starts).sum() + " starts" : String.join("\n", found));
    results.soak(rows);
  }

  /** Starts per JDK and order of agents. */
  static int repetitions(Mode mode) {
    return mode == Mode.FULL ? 10 : 1;
  }

  private static List<String> concat(List<String> first, List<String> second) {
    List<String> all = new ArrayList<>(first);
    all.addAll(second);
    return all;
  }
}
