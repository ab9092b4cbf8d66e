package dev.resyncmeter.deploy;

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
 * The machine's {@code kubectl} (its built-in kustomize) and Debian's {@code prometheus} and
 * {@code promtool}. CI must have them; elsewhere a test that needs a missing one is skipped and says why.
 */
final class Tools {

  /** The repository's root: the module's parent directory. */
  static final Path ROOT = Path.of("").toAbsolutePath().getParent();

  static final Path DEPLOY = ROOT.resolve("deploy");

  private Tools() {}

  static Path require(String name, String howToInstall) {
    for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
      Path candidate = Path.of(dir, name);
      if (Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    if ("true".equals(System.getenv("CI"))) {
      throw new AssertionError(name + " is not installed, but CI must run this test: " + howToInstall);
    }
    Assumptions.abort(name + " not found on PATH (" + howToInstall + "): skipping");
    return null;
  }

  record Result(int exit, String output) {}

  /** Runs a tool to its end (at most a minute), its standard error kept apart from its output. */
  static Result run(String tool, String howToInstall, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(require(tool, howToInstall).toString());
    command.addAll(List.of(args));
    Path errors = Files.createTempFile("resync-meter-" + tool, ".err");
    try {
      Process process = new ProcessBuilder(command).directory(ROOT.toFile()).redirectError(errors.toFile()).start();
      byte[] output = process.getInputStream().readAllBytes();
      assertThat(process.waitFor(60, TimeUnit.SECONDS)).as(String.join(" ", command)).isTrue();
      String text = new String(output, StandardCharsets.UTF_8) + Files.readString(errors);
      return new Result(process.exitValue(), process.exitValue() == 0 ? new String(output, StandardCharsets.UTF_8) : text);
    } finally {
      Files.deleteIfExists(errors);
    }
  }

  /** {@code kubectl kustomize DIR}: the rendered YAML; fails the test when it does not render. */
  static String kustomize(Path dir) throws IOException, InterruptedException {
    Result result = run("kubectl", "kubectl 1.32 or newer, with its built-in kustomize", "kustomize", dir.toString());
    assertThat(result.exit()).as("kubectl kustomize " + ROOT.relativize(dir) + "\n" + result.output()).isZero();
    return result.output();
  }

  static Result promtool(String... args) throws IOException, InterruptedException {
    return run("promtool", "apt-get install -y prometheus", args);
  }
}
