package dev.resyncmeter.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;

/** A test class that leaves a resync-meter-* entry in the temporary folder fails; one that removes it, or uses @TempDir, passes. */
class LeavesNoTempFilesTest {

  /** Where a leaving class's entry is, so that this test removes it afterwards. */
  static Path left;

  @AfterAll
  static void removeWhatTheLeavingClassLeft() throws IOException {
    if (left != null) {
      Files.deleteIfExists(left);
    }
  }

  @Test
  void aClassThatLeavesADirectoryFailsAndTheMessageNamesIt() {
    Events classes = run(LeavesADirectory.class);
    classes.assertStatistics(s -> s.failed(1));
    assertThat(classes.failed().stream().findFirst().orElseThrow().getPayload(org.junit.platform.engine.TestExecutionResult.class))
        .hasValueSatisfying(r -> assertThat(r.getThrowable()).hasValueSatisfying(t -> assertThat(t).hasMessageContaining(left.getFileName().toString())));
  }

  @Test
  void aClassThatRemovesWhatItMadeOrUsesTempDirPasses() {
    run(RemovesItsDirectory.class).assertStatistics(s -> s.failed(0).succeeded(2));
    run(UsesTempDir.class).assertStatistics(s -> s.failed(0).succeeded(2));
  }

  @Test
  void onlyNewResyncMeterEntriesAreLeftBehind() {
    assertThat(LeavesNoTempFiles.leftBehind(java.util.Set.of("resync-meter-a"), java.util.Set.of("resync-meter-a", "resync-meter-b")))
        .containsExactly("resync-meter-b");
    assertThat(LeavesNoTempFiles.leftBehind(java.util.Set.of("resync-meter-a", "resync-meter-b"), java.util.Set.of("resync-meter-a"))).isEmpty();
  }

  /** The events of the class containers (the engine's and the class's) when {@code testClass} runs. */
  private static Events run(Class<?> testClass) {
    return EngineTestKit.engine("junit-jupiter").selectors(selectClass(testClass)).execute().containerEvents();
  }

  @ExtendWith(LeavesNoTempFiles.class)
  static class LeavesADirectory {
    @Test
    void makesADirectoryAndKeepsIt() throws IOException {
      left = Files.createTempDirectory(LeavesNoTempFiles.PREFIX + "left-by-a-test");
    }
  }

  @ExtendWith(LeavesNoTempFiles.class)
  static class RemovesItsDirectory {
    @Test
    void makesADirectoryAndRemovesIt() throws IOException {
      Path dir = Files.createTempDirectory(LeavesNoTempFiles.PREFIX + "removed");
      try {
        Files.writeString(dir.resolve("file"), "x");
      } finally {
        Files.delete(dir.resolve("file"));
        Files.delete(dir);
      }
    }
  }

  @ExtendWith(LeavesNoTempFiles.class)
  static class UsesTempDir {
    @TempDir Path dir;

    @Test
    void writesIntoItsTempDir() throws IOException {
      Files.writeString(dir.resolve("file"), "x");
    }
  }
}
