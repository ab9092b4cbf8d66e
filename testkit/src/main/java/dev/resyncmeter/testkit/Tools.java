package dev.resyncmeter.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * The machine's tools a test needs: Debian's {@code prometheus} and {@code promtool}, {@code kubectl},
 * JDKs ({@link Jdks}). The rule for a missing one: CI ({@code CI} set to anything but empty) must have
 * it, so there the test fails; on a developer's machine the test is skipped and says what is missing
 * and how to get it.
 */
public final class Tools {

  /** How Debian installs {@code prometheus} and {@code promtool}. */
  public static final String PROMETHEUS_PACKAGE = "apt-get install -y prometheus";

  private Tools() {}

  /** The executable {@code name} on the PATH; without it, a failure in CI and a skip elsewhere. */
  public static Path require(String name, String howToInstall) {
    for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
      Path candidate = Path.of(dir, name);
      if (Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    missing(name + " not found on PATH (" + howToInstall + ")");
    return null;
  }

  /** Debian's {@code prometheus}, as {@link #require} finds it. */
  public static Path prometheus() {
    return require("prometheus", PROMETHEUS_PACKAGE);
  }

  /** Debian's {@code promtool}, as {@link #require} finds it. */
  public static Path promtool() {
    return require("promtool", PROMETHEUS_PACKAGE);
  }

  /**
   * What a test needs is missing ({@code what} says what and how to get it): in CI a failure, the
   * test must run there; elsewhere the test is skipped with that reason. Never returns.
   */
  public static void missing(String what) {
    if (isCi(System.getenv("CI"))) {
      throw new AssertionError(what + ", but CI must run this test");
    }
    Assumptions.abort(what + ": skipping");
  }

  /**
   * Whether the variable {@code CI} says this is CI: any value but empty, since CI services set it to
   * {@code true}, {@code 1} or their own name.
   */
  static boolean isCi(String ci) {
    return ci != null && !ci.isEmpty();
  }

  /** A tool's exit code and its output: standard output, with standard error after it when it failed. */
  public record Result(int exit, String output) {}

  /** Runs a tool found by {@link #require} in {@code dir} to its end (at most a minute), its standard error kept apart. */
  public static Result run(Path dir, String tool, String howToInstall, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(require(tool, howToInstall).toString());
    command.addAll(List.of(args));
    Path errors = Files.createTempFile("resync-meter-" + tool, ".err");
    try {
      Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectError(errors.toFile()).start();
      byte[] output = process.getInputStream().readAllBytes();
      assertThat(process.waitFor(60, TimeUnit.SECONDS)).as(String.join(" ", command)).isTrue();
      String text = new String(output, StandardCharsets.UTF_8) + Files.readString(errors);
      return new Result(process.exitValue(), process.exitValue() == 0 ? new String(output, StandardCharsets.UTF_8) : text);
    } finally {
      Files.deleteIfExists(errors);
    }
  }

  /** Runs {@code promtool check metrics} on a scrape body, as Prometheus lints one, and asserts it finds nothing. */
  public static void assertCleanMetrics(String body) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(promtool().toString(), "check", "metrics").redirectErrorStream(true).start();
    process.getOutputStream().write(body.getBytes(StandardCharsets.UTF_8));
    process.getOutputStream().close();
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("promtool finished").isTrue();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(output).as("promtool check metrics output").isEmpty();
    assertThat(process.exitValue()).as("promtool check metrics exit code").isZero();
  }
}
