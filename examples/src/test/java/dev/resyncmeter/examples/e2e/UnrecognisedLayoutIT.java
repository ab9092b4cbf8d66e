package dev.resyncmeter.examples.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resyncmeter.testkit.Scrape;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client-java whose workqueue the agent does not recognise: the scenario runs with a
 * {@code DefaultWorkQueue} of another shape (same API, its fields renamed) ahead of the real one on
 * the class path. The agent switches its workqueue instrumentation off with one warning line, the
 * host runs as always, and the informer's counts stay exact; no-op outcomes become {@code unknown},
 * since queue adds can no longer be seen.
 */
class UnrecognisedLayoutIT {

  /** The real queue's behaviour, with {@code dirty} and {@code shuttingDown} under other names. */
  private static final String OTHER_SHAPED_QUEUE =
      """
      package io.kubernetes.client.extended.workqueue;

      import java.util.HashSet;
      import java.util.LinkedList;
      import java.util.Set;

      public class DefaultWorkQueue<T> implements WorkQueue<T> {
        private final LinkedList<T> order = new LinkedList<>();
        private final Set<T> waiting = new HashSet<>();
        private final Set<T> working = new HashSet<>();
        private boolean stopping;

        public synchronized void add(T item) {
          if (stopping || !waiting.add(item) || working.contains(item)) {
            return;
          }
          order.add(item);
          notify();
        }

        public synchronized int length() {
          return order.size();
        }

        public synchronized T get() throws InterruptedException {
          while (order.isEmpty() && !stopping) {
            wait();
          }
          if (order.isEmpty()) {
            return null;
          }
          T item = order.poll();
          working.add(item);
          waiting.remove(item);
          return item;
        }

        public synchronized void done(T item) {
          working.remove(item);
          if (waiting.contains(item)) {
            order.add(item);
            notify();
          }
        }

        public synchronized void shutDown() {
          stopping = true;
          notifyAll();
        }

        public synchronized boolean isShuttingDown() {
          return stopping;
        }
      }
      """;

  private static final List<String> FAMILIES_WITHOUT_OUTCOMES =
      List.of(
          "informer_notifications_total",
          "informer_updates_total",
          "informer_resyncs_total",
          "informer_relists_total",
          "informer_relist_notifications_lost_total");

  @TempDir static Path classes;

  private static AgentProcess scenario;
  private static Map<String, Long> truth;
  private static Scrape scrape;

  @BeforeAll
  static void runTheScenarioWithAnotherShapedQueue() throws Exception {
    compileOtherShapedQueue();
    scenario = AgentProcess.startWithClassesFirst(classes, "host=127.0.0.1,port=0", "scenario", "4", "2", "3", "1");
    String url = scenario.metricsUrl(Duration.ofSeconds(30));
    scenario.awaitStdout("SCENARIO DONE"::equals, Duration.ofSeconds(120));
    truth = scenario.truth();
    scrape = Scrape.of(url);
  }

  private static void compileOtherShapedQueue() throws IOException {
    Path source = classes.resolve("src/io/kubernetes/client/extended/workqueue/DefaultWorkQueue.java");
    Files.createDirectories(source.getParent());
    Files.writeString(source, OTHER_SHAPED_QUEUE);
    String libraries;
    try (Stream<Path> jars = Files.list(AgentProcess.examplesJar().resolveSibling("lib"))) {
      libraries = jars.map(Path::toString).collect(Collectors.joining(java.io.File.pathSeparator));
    }
    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    int status = compiler.run(null, null, null, "--release", "8", "-nowarn", "-cp", libraries, "-d", classes.toString(), source.toString());
    assertThat(status).as("javac of the other-shaped queue").isZero();
  }

  @AfterAll
  static void stop() throws Exception {
    AgentProcess.end(scenario);
  }

  @Test
  void theAgentSaysOnceThatItSwitchedTheWorkqueueInstrumentationOff() {
    List<String> warnings = scenario.agentLines().stream().filter(l -> l.contains(" WARN ")).toList();
    assertThat(warnings)
        .singleElement()
        .asString()
        .startsWith("[resync-meter] WARN client-java workqueue instrumentation off: ")
        .contains("io.kubernetes.client.extended.workqueue.DefaultWorkQueue has no field 'dirty'");
  }

  @Test
  void theInformersCountsStayExact() {
    Map<String, Long> informerTruth = new TreeMap<>(truth);
    informerTruth.keySet().removeIf(series -> FAMILIES_WITHOUT_OUTCOMES.stream().noneMatch(f -> series.startsWith(f + "{")));
    assertThat(informerTruth).hasSizeGreaterThan(15);
    ExactCounts.assertExported(informerTruth, scrape);
    ExactCounts.assertNothingElse(informerTruth, scrape, FAMILIES_WITHOUT_OUTCOMES);
  }

  @Test
  void noopOutcomesAreUnknownWithTheSameTotals() {
    Map<String, Long> expected = new TreeMap<>();
    truth.forEach(
        (series, count) -> {
          if (series.startsWith("informer_noop_updates_total{")) {
            expected.merge(series.replaceAll("outcome=\"\\w+\"", "outcome=\"unknown\""), count, Long::sum);
          }
        });
    assertThat(expected).isNotEmpty();
    ExactCounts.assertExported(expected, scrape);
    ExactCounts.assertNothingElse(expected, scrape, List.of("informer_noop_updates_total"));
  }

  @Test
  void theExportedStateShowsTheWorkqueuePartOffAndTheOthersOn() {
    assertThat(scrape.series())
        .containsEntry("resync_meter_instrumentation_active{component=\"clientjava-workqueue\"}", 0.0)
        .containsEntry("resync_meter_instrumentation_active{component=\"clientjava-informer\"}", 1.0)
        .containsEntry("resync_meter_instrumentation_active{component=\"clientjava-controller\"}", 1.0);
  }

  @Test
  void nothingIsReportedOfTheQueueAndNoFaultIsCounted() {
    assertThat(scrape.series().keySet()).noneMatch(s -> s.startsWith("workqueue_"));
    assertThat(scrape.series().keySet()).noneMatch(s -> s.startsWith("resync_meter_errors_total"));
  }
}
