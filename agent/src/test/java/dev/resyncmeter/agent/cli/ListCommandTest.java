package dev.resyncmeter.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code list} prints each column as wide as its widest value, so no value runs past its header. */
class ListCommandTest {

  @Test
  void eachColumnIsAsWideAsItsWidestValue() {
    assertThat(
            ListCommand.table(
                List.of(
                    List.of("PID", "JAVA", "RESYNC-METER", "MAIN CLASS"),
                    List.of("4538", "?", "? (cannot attach)", "/tmp/ci/examples/target/resync-meter-examples.jar"),
                    List.of("1234567", "17", "0.1.0-SNAPSHOT serving http://127.0.0.1:9464/metrics", "org.example.Controller"),
                    List.of("30529", "21", "no", "org.codehaus.plexus.classworlds.launcher.Launcher"))))
        .isEqualTo(
            String.join(
                "\n",
                "PID      JAVA  RESYNC-METER                                          MAIN CLASS",
                "4538     ?     ? (cannot attach)                                     /tmp/ci/examples/target/resync-meter-examples.jar",
                "1234567  17    0.1.0-SNAPSHOT serving http://127.0.0.1:9464/metrics  org.example.Controller",
                "30529    21    no                                                    org.codehaus.plexus.classworlds.launcher.Launcher",
                ""));
  }

  @Test
  void withoutOtherJvmsOnlyTheHeadersShow() {
    assertThat(ListCommand.table(List.of(List.of("PID", "JAVA", "RESYNC-METER", "MAIN CLASS")))).isEqualTo("PID  JAVA  RESYNC-METER  MAIN CLASS\n");
  }
}
