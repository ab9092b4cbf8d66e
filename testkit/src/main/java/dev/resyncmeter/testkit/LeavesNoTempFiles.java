package dev.resyncmeter.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Fails a test class that leaves a {@code resync-meter-*} entry in the temporary folder: the names it
 * finds there after the class that were not there before it. A test takes a JUnit {@code @TempDir}
 * (JUnit removes it, failed or not) or removes what it made in a {@code finally}.
 *
 * <p>A module turns it on for all its test classes: {@code junit.jupiter.extensions.autodetection.enabled=true}
 * in its test resources' {@code junit-platform.properties} (this jar's {@code META-INF/services}
 * registers it), and a temporary folder of the test JVM's own, {@code -Djava.io.tmpdir=${project.build.directory}/tmp}
 * in the {@code argLine} of Surefire and Failsafe, so that another build's entries in the machine's
 * {@code /tmp} are never taken for the test's. As a launcher session listener (registered the same
 * way, for every module with this jar) it makes that folder before the first test, since the JVM does
 * not. It lists one folder twice per class.
 */
public final class LeavesNoTempFiles implements BeforeAllCallback, AfterAllCallback, LauncherSessionListener {

  static final String PREFIX = "resync-meter-";
  private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(LeavesNoTempFiles.class);

  @Override
  public void launcherSessionOpened(LauncherSession session) {
    try {
      Files.createDirectories(temporaryFolder());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot make the temporary folder " + temporaryFolder(), e);
    }
  }

  @Override
  public void beforeAll(ExtensionContext context) throws IOException {
    context.getStore(NAMESPACE).put("before", entries(temporaryFolder()));
  }

  @Override
  public void afterAll(ExtensionContext context) throws IOException {
    @SuppressWarnings("unchecked")
    Set<String> before = (Set<String>) context.getStore(NAMESPACE).get("before", Set.class);
    Set<String> left = leftBehind(before, entries(temporaryFolder()));
    if (!left.isEmpty()) {
      throw new AssertionError(context.getDisplayName() + " left " + left + " in " + temporaryFolder() + ": remove what a test makes, failed or not");
    }
  }

  /** The {@code resync-meter-*} names in {@code after} that {@code before} did not have. */
  static Set<String> leftBehind(Set<String> before, Set<String> after) {
    Set<String> left = new TreeSet<>(after);
    left.removeAll(before);
    return left;
  }

  /** The names of {@code folder}'s {@code resync-meter-*} entries. */
  static Set<String> entries(Path folder) throws IOException {
    try (Stream<Path> all = Files.list(folder)) {
      return all.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(PREFIX)).collect(TreeSet::new, Set::add, Set::addAll);
    }
  }

  private static Path temporaryFolder() {
    return Path.of(System.getProperty("java.io.tmpdir"));
  }
}
