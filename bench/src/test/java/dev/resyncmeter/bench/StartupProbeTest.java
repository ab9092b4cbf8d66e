package dev.resyncmeter.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** What a start-up probe counts as a warning a user would read on the host's stderr. */
class StartupProbeTest {

  @Test
  void resyncMeterLinesOtherThanInfoAndTheJvmsWarningsAreWarnings() {
    List<String> stderr =
        List.of(
            "[resync-meter] INFO resync-meter 0.1.0 serving http://127.0.0.1:9464/metrics; instrumenting client-java 27.0.0 (informer)",
            "[resync-meter] WARN client-java informer instrumentation off: could not weave X",
            "[resync-meter] failed to start, the application runs without it: java.lang.Error",
            "OpenJDK 64-Bit Server VM warning: Sharing is only supported for boot loader classes because bootstrap classpath has been appended",
            "[otel.javaagent 2026-12-06 03:00:00:000 +0000] [main] INFO io.opentelemetry.javaagent.tooling.VersionLogger - opentelemetry-javaagent - version: 2.33.1",
            "[main] WARN the.hosts.own.Logger - its own warning");

    assertThat(StartupProbe.warnings(stderr))
        .containsExactly(stderr.get(1), stderr.get(2), stderr.get(3));
  }

  @Test
  void aWarningAnotherAgentPrintsAloneIsNotCounted() {
    String sharing = "OpenJDK 64-Bit Server VM warning: Sharing is only supported for boot loader classes because bootstrap classpath has been appended";
    String ours = "[resync-meter] WARN client-java informer instrumentation off: could not weave X";
    StartupProbe.Start beside = new StartupProbe.Start(3000.0, List.of(sharing, ours), "");

    assertThat(beside.without(List.of(sharing)).warnings()).containsExactly(ours);
  }

  @Test
  void aStartWithoutAFirstReconcileHung() {
    assertThat(new StartupProbe.Start(null, List.of(), "").hung()).isTrue();
    assertThat(new StartupProbe.Start(2100.0, List.of(), "").hung()).isFalse();
    assertThat(new StartupProbe.Start(2100.0, List.of(), "").warned()).isFalse();
  }
}
