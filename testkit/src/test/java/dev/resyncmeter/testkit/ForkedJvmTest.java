package dev.resyncmeter.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The forked process's output is captured; every wait is bounded and says why it ended. */
class ForkedJvmTest {

  private static ForkedJvm sh(String script) throws Exception {
    return ForkedJvm.start(List.of("sh", "-c", script), Map.of("TESTKIT_VALUE", "v"), ForkedJvm.AGENT_VARIABLES);
  }

  @Test
  void linesOfBothStreamsAreAwaitedAndKept() throws Exception {
    try (ForkedJvm process = sh("echo one; echo \"two $TESTKIT_VALUE\"; echo '[resync-meter] INFO serving http://127.0.0.1:5/metrics' >&2; read line; echo \"got $line\"")) {
      assertThat(process.awaitStdout(l -> l.startsWith("two"), Duration.ofSeconds(10))).isEqualTo("two v");
      assertThat(process.metricsUrl(Duration.ofSeconds(10))).isEqualTo("http://127.0.0.1:5/metrics");
      process.send("three");
      assertThat(process.awaitStdout(l -> l.startsWith("got"), Duration.ofSeconds(10))).isEqualTo("got three");
      assertThat(process.closeInputAndWait(Duration.ofSeconds(10))).isZero();
      assertThat(process.stdout()).containsExactly("one", "two v", "got three");
      assertThat(process.agentLines()).hasSize(1);
    }
  }

  @Test
  void aWaitEndsWhenTheStreamEndsWithoutTheLine() throws Exception {
    try (ForkedJvm process = sh("echo only; exit 3")) {
      long start = System.nanoTime();
      assertThatThrownBy(() -> process.awaitStdout("never"::equals, Duration.ofSeconds(60)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("before a matching line")
          .hasMessageContaining("exit 3")
          .hasMessageContaining("only");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(30));
    }
  }

  @Test
  void aWaitEndsAtItsTimeoutAndAProcessThatDoesNotExitIsKilled() throws Exception {
    try (ForkedJvm process = sh("exec sleep 60")) {
      assertThatThrownBy(() -> process.awaitStdout("never"::equals, Duration.ofMillis(200))).hasMessageContaining("within PT0.2S");
      assertThatThrownBy(() -> process.waitFor(Duration.ofMillis(200))).hasMessageContaining("no exit within");
      assertThat(process.waitFor(Duration.ofSeconds(10))).isNotZero();
    }
  }
}
