package dev.resyncmeter.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code deploy/local/run-prometheus}'s command line, with a stand-in {@code prometheus} first on the
 * PATH that prints its flags and the target line of the configuration it was given. The real
 * Prometheus runs it in {@link LocalStackIT}.
 */
class RunPrometheusTest {

  static final Path SCRIPT = PrometheusConfigsTest.LOCAL.resolve("run-prometheus");

  @TempDir Path dir;

  record Run(int exit, String out, String err) {}

  /** Runs the script to its end (at most 30 s) with {@code environment} added. */
  static Run run(Map<String, String> environment, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("bash", SCRIPT.toString()));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    builder.environment().putAll(environment);
    Path out = Files.createTempFile("run-prometheus", ".out");
    Path err = Files.createTempFile("run-prometheus", ".err");
    try {
      Process process = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new AssertionError("run-prometheus " + String.join(" ", args) + " did not end within 30 s");
      }
      return new Run(process.exitValue(), Files.readString(out), Files.readString(err));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  /** A PATH whose first entry holds a {@code prometheus} that prints its flags and its config's targets. */
  private Map<String, String> withStandIn() throws IOException {
    Path bin = Files.createDirectories(dir.resolve("bin"));
    Path stub = bin.resolve("prometheus");
    Files.writeString(
        stub,
        String.join(
            "\n",
            "#!/bin/sh",
            "echo \"flags $*\"",
            "for a; do case $a in --config.file=*) grep 'targets:' \"${a#--config.file=}\";; esac; done",
            ""),
        StandardCharsets.UTF_8);
    Files.setPosixFilePermissions(stub, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path tmp = Files.createDirectories(dir.resolve("tmp"));
    return Map.of("PATH", bin + ":" + System.getenv().getOrDefault("PATH", "/usr/bin:/bin"), "TMPDIR", tmp.toString());
  }

  @Test
  void everyFormOfHostAndPortIsAcceptedAndReplacesOnlyTheTarget() throws Exception {
    Map<String, String> environment = withStandIn();
    for (String target : List.of("127.0.0.1:9464", "localhost:9464", "metrics.team-a.svc.cluster.local:9464", "[::1]:9464", "[fe80::1%eth0]:65535")) {
      Run run = run(environment, target);
      assertThat(run.exit()).as(target + "\n" + run.err()).isZero();
      assertThat(run.err()).as(target).isEmpty();
      List<String> lines = run.out().lines().toList();
      assertThat(lines).as(target).hasSize(3);
      assertThat(lines.get(0)).isEqualTo("run-prometheus: scraping " + target + "; Prometheus on http://127.0.0.1:9090");
      assertThat(lines.get(1)).startsWith("flags --config.file=").endsWith(" --web.listen-address=127.0.0.1:9090");
      assertThat(lines.get(2)).isEqualTo("      - targets: [\"" + target + "\"]");
    }
    // the data directory of each run is gone with it
    assertThat(Path.of(environment.get("TMPDIR"))).isEmptyDirectory();
  }

  @Test
  void theDefaultTargetIsTheAgentsDefaultPortAndListenSetsWhereItServes() throws Exception {
    Map<String, String> environment = withStandIn();
    Run defaults = run(environment);
    assertThat(defaults.exit()).as(defaults.err()).isZero();
    assertThat(defaults.out()).contains("      - targets: [\"127.0.0.1:9464\"]");
    Run listen = run(environment, "--listen", "127.0.0.1:19090", "[::1]:9500", "--log.level=debug");
    assertThat(listen.exit()).as(listen.err()).isZero();
    assertThat(listen.out())
        .startsWith("run-prometheus: scraping [::1]:9500; Prometheus on http://127.0.0.1:19090\n")
        .contains("--web.listen-address=127.0.0.1:19090 --log.level=debug\n")
        .contains("      - targets: [\"[::1]:9500\"]");
  }

  @Test
  void aBadAddressExitsWith2AndOneLineBeforeStartingAnything() throws Exception {
    Map<String, String> environment = withStandIn();
    for (String target : List.of("127.0.0.1", ":9464", "host:port", "host:0", "host:65536", "::1:9464", "[::1:9464", "[]:9464", "[g::1]:9464", "a b:9464", "a/b:9464", "a&b:9464")) {
      Run run = run(environment, target);
      assertThat(run.exit()).as(target).isEqualTo(2);
      assertThat(run.out()).as(target).isEmpty();
      assertThat(run.err()).as(target).isEqualTo("run-prometheus: target '" + target + "' is not host:port\n");
    }
    Run listen = run(environment, "--listen", "9090");
    assertThat(listen.exit()).isEqualTo(2);
    assertThat(listen.out()).isEmpty();
    assertThat(listen.err()).isEqualTo("run-prometheus: --listen '9090' is not host:port\n");
    assertThat(Path.of(environment.get("TMPDIR"))).isEmptyDirectory();
  }

  @Test
  void helpDescribesTheTargetListenAndPrometheusFlags() throws Exception {
    Run help = run(withStandIn(), "--help");
    assertThat(help.exit()).isZero();
    assertThat(help.err()).isEmpty();
    assertThat(help.out()).contains("[--listen HOST:PORT] [TARGET [PROMETHEUS FLAG...]]").contains("  TARGET ").contains("  --listen ")
        .contains("  PROMETHEUS FLAG ").contains("default 127.0.0.1:9464").contains("default 127.0.0.1:9090").doesNotContain("flags ");
  }
}
