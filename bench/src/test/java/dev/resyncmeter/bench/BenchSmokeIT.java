package dev.resyncmeter.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.resyncmeter.testkit.ForkedJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The whole benchmark in smoke mode, as {@code bench/run --smoke} runs it, in a forked JVM: it must
 * complete, write every section, and find resync-meter's exported counts equal to the e2e program's
 * own. Timing is never asserted: this machine is shared and noisy.
 */
class BenchSmokeIT {

  @Test
  void theSmokeRunCompletesWithEverySectionAndExactCounts() throws Exception {
    Path benchJar = existing(System.getProperty("resyncmeter.benchJar"));
    Path agentJar = existing(System.getProperty("resyncmeter.agentJar"));
    Path resultsDir = Path.of(System.getProperty("resyncmeter.smokeResultsDir")).toAbsolutePath();

    try (ForkedJvm bench =
        ForkedJvm.startJava(
            List.of("-Xmx512m"),
            List.of("-jar", benchJar.toString(), "--smoke", "--agent", agentJar.toString(), "--results", resultsDir.toString(), "--label", "smoke"),
            ForkedJvm.ANY_AGENT_VARIABLES)) {
      int exit = bench.waitFor(Duration.ofMinutes(6));
      assertThat(exit).as("exit code of the smoke run\n%s", bench.transcript()).isZero();
    }

    JsonObject results = JsonParser.parseString(Files.readString(resultsDir.resolve("latest.json"))).getAsJsonObject();
    assertThat(results.get("mode").getAsString()).isEqualTo("smoke");
    assertThat(results.keySet()).contains("machine", "jvm", "agentJar", "micro", "e2e", "queueWave", "startup", "heap", "targets", "checks");
    assertThat(Files.readString(resultsDir.resolve("latest.md")))
        .contains("## Micro-benchmarks", "## End-to-end resync waves", "## Queue-only waves", "## Start-up", "## Retained heap", "## Targets");

    JsonArray benchmarks = results.getAsJsonObject("micro").getAsJsonArray("benchmarks");
    assertThat(names(benchmarks, "name"))
        .containsExactly(
            "handlerNoopIdle", "handlerChangedIdle", "handlerNoopEnqueue", "handlerChangedEnqueue", "fabric8HandlerNoopIdle",
            "fabric8HandlerChangedIdle", "workQueueCycle", "rateLimitingQueueCycle",
            "reconcile", "workerItem", "apiRequestInReconcile", "apiWriteInReconcile", "apiChangingWriteInReconcile", "clockRead");
    for (JsonElement benchmark : benchmarks) {
      assertThat(benchmark.getAsJsonObject().getAsJsonObject("nsPerOp").keySet()).containsExactly("none", "resync-meter");
      assertThat(benchmark.getAsJsonObject().getAsJsonObject("bytesPerOp").keySet()).containsExactly("none", "resync-meter");
    }
    List<String> configs = List.of("none", "resync-meter", "opentelemetry", "jmx-exporter");
    // The smoke runs the e2e program without and with resync-meter; the peers only in the start-up probes.
    List<String> e2eConfigs = List.of("none", "resync-meter");
    assertThat(results.getAsJsonObject("e2e").getAsJsonObject("configs").keySet()).containsExactlyElementsOf(e2eConfigs);
    assertThat(results.getAsJsonObject("heap").getAsJsonObject("liveHeap").keySet()).containsExactlyElementsOf(e2eConfigs);
    // The fabric8 informer wave, beside it: the same configurations, and resync-meter's pooled ratio.
    JsonObject fabric8 = results.getAsJsonObject("e2e").getAsJsonObject("fabric8");
    assertThat(fabric8.getAsJsonObject("configs").keySet()).containsExactlyElementsOf(e2eConfigs);
    assertThat(fabric8.getAsJsonObject("pooledWaveRatios").keySet()).containsExactly("resync-meter");
    // The queue-only wave: its four variants, no agent first, each with every key reconciled (a check below).
    assertThat(results.getAsJsonObject("queueWave").getAsJsonObject("variants").keySet())
        .containsExactly("none", "resync-meter", "resync-meter-no-workqueue", "none-polluted");
    JsonObject probes = results.getAsJsonObject("startup").getAsJsonObject("probes");
    // The smoke probes the first reconcile on the JDK the bench runs on; a full run adds Java 25.
    assertThat(probes.keySet())
        .containsExactly(
            "java -version",
            "first reconcile (Java " + Runtime.version().feature() + ")",
            "first reconcile, own handler class (Java " + Runtime.version().feature() + ")");
    for (String probe : probes.keySet()) {
      assertThat(probes.getAsJsonObject(probe).keySet()).containsExactlyElementsOf(configs);
    }

    JsonArray checks = results.getAsJsonArray("checks");
    List<String> failed = new ArrayList<>();
    List<String> exactCounts = new ArrayList<>();
    List<String> depthExactCounts = new ArrayList<>();
    List<String> queueWaves = new ArrayList<>();
    List<String> queueWaveAgents = new ArrayList<>();
    for (JsonElement element : checks) {
      JsonObject check = element.getAsJsonObject();
      if (!check.get("passed").getAsBoolean()) {
        failed.add(check.get("name").getAsString() + ": " + check.get("detail").getAsString());
      }
      if (check.get("name").getAsString().contains("e2e exact count")) {
        (check.get("name").getAsString().startsWith("depth ") ? depthExactCounts : exactCounts).add(check.get("name").getAsString());
      }
      if (check.get("name").getAsString().startsWith("queue wave ") && check.get("name").getAsString().endsWith("reconciled once")) {
        queueWaves.add(check.get("name").getAsString());
      }
      if (check.get("name").getAsString().startsWith("queue wave ") && check.get("name").getAsString().contains("the agent counted")) {
        queueWaveAgents.add(check.get("name").getAsString());
      }
    }
    assertThat(failed).as("failed checks").isEmpty();
    assertThat(exactCounts)
        .as("the exact-count checks of the resync-meter e2e runs: four of client-java's, three of fabric8's (its queue is not instrumented)")
        .hasSize(7)
        .anyMatch(name -> name.contains("informer_notifications_total{type=\"update\"}"))
        .anyMatch(name -> name.startsWith("e2e fabric8 resync-meter") && name.contains("informer_notifications_total{type=\"update\"}"))
        .anyMatch(name -> name.contains("controller_reconcile_total"));
    assertThat(depthExactCounts).as("the depth table's resync-meter runs: four exact-count checks at each of its two smoke depths").hasSize(8);
    assertThat(queueWaves).as("one reconcile check per queue-wave run").hasSize(4);
    // The runs with resync-meter scraped it: it was on, and counted the wave's adds and reconciles.
    assertThat(queueWaveAgents)
        .as("one agent-count check per queue-wave run with resync-meter")
        .containsExactly(
            "queue wave resync-meter: the agent counted every add and reconcile",
            "queue wave resync-meter-no-workqueue: the agent counted every add and reconcile");
    assertThat(results.get("passed").getAsBoolean()).isTrue();
  }

  private static List<String> names(JsonArray array, String field) {
    List<String> names = new ArrayList<>();
    array.forEach(e -> names.add(e.getAsJsonObject().get(field).getAsString()));
    return names;
  }

  private static Path existing(String path) {
    assertThat(path).as("system property set by failsafe").isNotNull();
    Path resolved = Path.of(path).toAbsolutePath().normalize();
    assertThat(resolved).as("run `mvn verify` from the top folder, which builds it first").isRegularFile();
    return resolved;
  }
}
