package dev.resyncmeter.testkit;

import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Debian's {@code prometheus}, started by a test on a free loopback port with the configuration it
 * wrote, ready before {@link #start} returns, ended by {@link #close()}. Its TSDB and its log go
 * beside the configuration ({@code data/}, {@code prometheus.log}). Without Debian's package the test
 * fails in CI and is skipped elsewhere ({@link Tools}).
 */
public final class Prometheus implements AutoCloseable {

  private static final Duration READY = Duration.ofSeconds(60);
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(30);

  private final Process process;
  private final String api;
  private final Path log;

  private Prometheus(Process process, String api, Path log) {
    this.process = process;
    this.api = api;
    this.log = log;
  }

  /** Starts it with {@code config} (and these further flags) and waits, at most a minute, until it is ready. */
  public static Prometheus start(Path config, String... flags) throws IOException, InterruptedException {
    Path binary = Tools.prometheus();
    Path dir = config.toAbsolutePath().getParent();
    int port = Net.freePort();
    List<String> command = new ArrayList<>(List.of(
        binary.toString(),
        "--config.file=" + config,
        "--storage.tsdb.path=" + dir.resolve("data"),
        "--web.listen-address=127.0.0.1:" + port));
    command.addAll(List.of(flags));
    Path log = dir.resolve("prometheus.log");
    Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    Prometheus prometheus = new Prometheus(process, "http://127.0.0.1:" + port, log);
    try {
      awaitReady(prometheus.api, process, prometheus::log);
    } catch (RuntimeException | Error | InterruptedException e) {
      prometheus.close();
      throw e;
    }
    return prometheus;
  }

  /**
   * Waits, at most a minute and while {@code process} runs, until the Prometheus at {@code api} says
   * it is ready; fails with {@code log} when it does not get there.
   */
  public static void awaitReady(String api, Process process, Supplier<String> log) throws InterruptedException {
    long deadline = System.nanoTime() + READY.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new AssertionError("prometheus ended before it was ready\n" + log.get());
      }
      try {
        if (Net.get(api + "/-/ready", null, Duration.ofSeconds(2)).status() == 200) {
          return;
        }
      } catch (IOException notYet) {
        // not listening yet
      }
      Thread.sleep(250);
    }
    throw new AssertionError("prometheus did not become ready within " + READY + "\n" + log.get());
  }

  /** Its base URL, {@code http://127.0.0.1:PORT}. */
  public String api() {
    return api;
  }

  /** The body of {@code GET <api><pathAndQuery>} (an error's too), JSON for the API's paths. */
  public String get(String pathAndQuery) throws IOException {
    return Net.get(api + pathAndQuery, null, READ_TIMEOUT).body();
  }

  /** The JSON answer of an instant query. */
  public String query(String promql) throws IOException {
    return get("/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8));
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** What it logged so far. */
  public String log() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "(no " + log + ")";
    }
  }

  /** Ends it: SIGTERM, and SIGKILL if it has not ended within 20 s. */
  @Override
  public void close() throws InterruptedException {
    ForkedJvm.stop(process, Duration.ofSeconds(20));
  }
}
