package dev.resyncmeter.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The repository's folders, the machine's {@code kubectl} (its built-in kustomize) and Debian's
 * {@code promtool}, found and run by {@link dev.resyncmeter.testkit.Tools}: CI must have them;
 * elsewhere a test that needs a missing one is skipped and says why.
 */
final class Tools {

  /** The repository's root: the module's parent directory. */
  static final Path ROOT = Path.of("").toAbsolutePath().getParent();

  static final Path DEPLOY = ROOT.resolve("deploy");

  private Tools() {}

  /** Debian's {@code prometheus}: a failure in CI without it, a skip elsewhere. */
  static Path prometheus() {
    return dev.resyncmeter.testkit.Tools.prometheus();
  }

  /** {@code kubectl kustomize DIR}: the rendered YAML; fails the test when it does not render. */
  static String kustomize(Path dir) throws IOException, InterruptedException {
    dev.resyncmeter.testkit.Tools.Result result =
        dev.resyncmeter.testkit.Tools.run(ROOT, "kubectl", "kubectl 1.32 or newer, with its built-in kustomize", "kustomize", dir.toString());
    assertThat(result.exit()).as("kubectl kustomize " + ROOT.relativize(dir) + "\n" + result.output()).isZero();
    return result.output();
  }

  static dev.resyncmeter.testkit.Tools.Result promtool(String... args) throws IOException, InterruptedException {
    return dev.resyncmeter.testkit.Tools.run(ROOT, "promtool", dev.resyncmeter.testkit.Tools.PROMETHEUS_PACKAGE, args);
  }
}
