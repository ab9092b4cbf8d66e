package dev.resyncmeter.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The JDKs the end-to-end tests run the agent on, found without a hard-coded path: the JVM running
 * the tests when it has the wanted feature version, else {@code JAVA<N>_HOME} (which {@code .ci/run}
 * exports), else any JDK under {@code /usr/lib/jvm} whose {@code release} file says so. CI
 * ({@code CI} set, to anything but empty) must have each; on a developer's machine a missing one skips and says why
 * ({@link Tools#missing}).
 */
public final class Jdks {

  static final Path SYSTEM_JDKS = Path.of("/usr/lib/jvm");
  private static final Pattern JAVA_VERSION = Pattern.compile("^JAVA_VERSION=\"(\\d+)[.\"]", Pattern.MULTILINE);

  private Jdks() {}

  /** The home of a JDK of this feature version (17, 25), or a skip (a failure in CI) without one. */
  public static Path home(int feature) {
    Path found = find(feature);
    if (found == null) {
      Tools.missing("no JDK " + feature + " (set JAVA" + feature + "_HOME or install one under " + SYSTEM_JDKS + ") for the runs on Java " + feature);
    }
    return found;
  }

  /** The home of a JDK of this feature version, found as {@link #home} finds it, or null without one. */
  public static Path find(int feature) {
    if (Runtime.version().feature() == feature) {
      return Path.of(System.getProperty("java.home"));
    }
    String variable = "JAVA" + feature + "_HOME";
    String fromEnvironment = System.getenv(variable);
    if (fromEnvironment != null && !fromEnvironment.isBlank()) {
      Path home = Path.of(fromEnvironment);
      if (featureOf(home) != feature) {
        throw new AssertionError(variable + "=" + fromEnvironment + " is not a JDK " + feature + " (its release file says " + featureOf(home) + ")");
      }
      return home;
    }
    return scan(SYSTEM_JDKS, feature);
  }

  /** The first JDK (in name order) directly under {@code dir} of this feature version, or null. */
  static Path scan(Path dir, int feature) {
    if (!Files.isDirectory(dir)) {
      return null;
    }
    try (Stream<Path> homes = Files.list(dir)) {
      return homes.sorted().filter(home -> featureOf(home) == feature).findFirst().orElse(null);
    } catch (IOException e) {
      return null;
    }
  }

  /** The feature version in a JDK's {@code release} file, if it has a {@code bin/java}; else -1. */
  static int featureOf(Path home) {
    Path release = home.resolve("release");
    if (!Files.isExecutable(home.resolve("bin").resolve("java")) || !Files.isRegularFile(release)) {
      return -1;
    }
    try {
      Matcher matcher = JAVA_VERSION.matcher(Files.readString(release));
      return matcher.find() ? Integer.parseInt(matcher.group(1)) : -1;
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }
}
