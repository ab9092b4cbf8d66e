package dev.resyncmeter.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The lines a run prints as it goes, exactly as they have always read. */
class ConsoleLinesTest {

  @Test
  void eachSectionSaysWhenItStartsAndHowLongItTook() {
    assertThat(ConsoleLines.sectionStarts("e2e")).isEqualTo("[bench] e2e ...");
    assertThat(ConsoleLines.sectionDone("e2e", 1024.46)).isEqualTo("[bench] e2e done in 1024 s");
    assertThat(ConsoleLines.resultsWritten(Path.of("/r/a.json"), Path.of("/r/a.md"), true)).isEqualTo("[bench] results: /r/a.json and /r/a.md");
    assertThat(ConsoleLines.resultsWritten(Path.of("/r/a.json"), Path.of("/r/a.md"), false)).isEqualTo("[bench] results: /r/a.json and /r/a.md (CHECKS FAILED)");
  }

  @Test
  void eachMeasurementIsPrintedAsItComes() {
    assertThat(ConsoleLines.microRun("workerItem", "resync-meter", 123.456)).isEqualTo("[bench]   workerItem resync-meter: 123.5 ns/op");
    assertThat(ConsoleLines.e2eRun("e2e none run 3", 412.6, 57.25)).isEqualTo("[bench]   e2e none run 3: wave 413 ms, heap 57.3 MiB");
    assertThat(ConsoleLines.queueWave("resync-meter-no-workqueue", 170.4, 320.6)).isEqualTo("[bench]   queue wave, resync-meter-no-workqueue: median 170 ms, CPU 321 ms");
    assertThat(ConsoleLines.noJdk(25, "soak")).isEqualTo("[bench]   no JDK 25 (set JAVA25_HOME): no soak on Java 25");
    assertThat(ConsoleLines.startupProbe("java -version", "jmx-exporter", 160.2)).isEqualTo("[bench]   start-up java -version, jmx-exporter: median 160 ms");
    assertThat(ConsoleLines.soak(17, "after OpenTelemetry", 10, 1, 2))
        .isEqualTo("[bench]   soak Java 17, resync-meter after OpenTelemetry: 10 starts, 1 hung, 2 warned");
  }
}
