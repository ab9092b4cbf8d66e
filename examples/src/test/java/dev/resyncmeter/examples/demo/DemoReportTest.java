package dev.resyncmeter.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.LocalTime;
import org.junit.jupiter.api.Test;

class DemoReportTest {

  @Test
  void theTimeOfAReportAlwaysHasHoursMinutesAndSeconds() {
    assertThat(DemoReport.stamp(LocalTime.of(17, 53))).isEqualTo("[17:53:00]");
    assertThat(DemoReport.stamp(LocalTime.of(9, 5, 7, 999_000_000))).isEqualTo("[09:05:07]");
  }
}
