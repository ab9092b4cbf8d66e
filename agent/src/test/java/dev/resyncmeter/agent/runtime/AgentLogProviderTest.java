package dev.resyncmeter.agent.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What Micrometer logs through the agent's SLF4J is written as the agent's own lines, by its log thread. */
class AgentLogProviderTest {

  private final ByteArrayOutputStream captured = new ByteArrayOutputStream();
  private PrintStream stderr;

  @BeforeEach
  void captureStderr() {
    stderr = System.err;
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
  }

  @AfterEach
  void restoreStderr() {
    System.setErr(stderr);
  }

  @Test
  void slf4jInTheAgentLogsThroughTheAgentsProvider() {
    assertThat(LoggerFactory.getLogger("io.micrometer.core.instrument.MeterRegistry")).isInstanceOf(AgentLogProvider.AgentLogger.class);
  }

  @Test
  void infoWarnAndErrorAreWrittenAsTheAgentsLinesWithTheirLevel() throws InterruptedException {
    Logger logger = new AgentLogProvider().getLoggerFactory().getLogger("io.micrometer.core.instrument.MeterRegistry");

    logger.info("registry {} ready", "prometheus");
    logger.warn("meter {} has {} tags", "a", 2);
    logger.error("scrape failed", new IllegalStateException("closed"));

    assertThat(awaitLines(3))
        .containsExactly(
            "[resync-meter] INFO registry prometheus ready",
            "[resync-meter] WARN meter a has 2 tags",
            "[resync-meter] ERROR scrape failed: java.lang.IllegalStateException: closed");
  }

  @Test
  void debugAndTraceAreDropped() throws InterruptedException {
    Logger logger = new AgentLogProvider().getLoggerFactory().getLogger("io.micrometer.core.instrument.MeterRegistry");

    assertThat(logger.isDebugEnabled()).isFalse();
    logger.debug("a debug line");
    logger.trace("a trace line");
    logger.info("after them");

    assertThat(awaitLines(1)).containsExactly("[resync-meter] INFO after them");
  }

  /** The first {@code count} lines the log thread wrote, waiting at most 10 s for them. */
  private String[] awaitLines(int count) throws InterruptedException {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (lines().length < count && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    return lines();
  }

  private String[] lines() {
    String text = captured.toString(StandardCharsets.UTF_8);
    return text.isEmpty() ? new String[0] : text.split("\n");
  }
}
