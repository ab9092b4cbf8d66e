package dev.resyncmeter.examples.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Debian's {@code promtool}, to lint a scrape as Prometheus does. CI installs it and must have it; on
 * a developer's machine without it the check is skipped and says why.
 */
final class Promtool {

  private Promtool() {}

  static Path find() {
    for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
      Path candidate = Path.of(dir, "promtool");
      if (Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    if ("true".equals(System.getenv("CI"))) {
      throw new AssertionError("promtool is not installed, but CI must run this check: apt-get install -y prometheus");
    }
    Assumptions.abort("promtool not found on PATH (apt-get install prometheus): skipping the lint of the scrape");
    return null;
  }

  /** Runs {@code promtool check metrics} on a scrape body and asserts it finds nothing. */
  static void assertCleanMetrics(String body) throws IOException, InterruptedException {
    Path promtool = find();
    Process process = new ProcessBuilder(promtool.toString(), "check", "metrics").redirectErrorStream(true).start();
    process.getOutputStream().write(body.getBytes(StandardCharsets.UTF_8));
    process.getOutputStream().close();
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("promtool finished").isTrue();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(output).as("promtool check metrics output").isEmpty();
    assertThat(process.exitValue()).as("promtool check metrics exit code").isZero();
  }
}
