package dev.resyncmeter.dashboards;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/**
 * Debian's {@code prometheus} and {@code promtool}. CI installs them and must have them; on a
 * developer's machine without them a test that needs them is skipped and says why.
 */
final class Tools {

  private Tools() {}

  static Path require(String name) {
    for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
      Path candidate = Path.of(dir, name);
      if (Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    if ("true".equals(System.getenv("CI"))) {
      throw new AssertionError(name + " is not installed, but CI must run this test: apt-get install -y prometheus");
    }
    Assumptions.abort(name + " not found on PATH (apt-get install prometheus): skipping");
    return null;
  }
}
