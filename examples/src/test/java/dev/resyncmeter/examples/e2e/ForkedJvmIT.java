package dev.resyncmeter.examples.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Which JVM the end-to-end tests fork: the build runs them twice, once on the JDK running the tests
 * and once, with {@code -Dresyncmeter.testJdk=25}, on a Java 25 found on the machine.
 */
class ForkedJvmIT {

  @Test
  void theForkedJvmsRunOnTheJdkThisPassAsksFor() throws Exception {
    String asked = System.getProperty("resyncmeter.testJdk", "");
    int expected = asked.isEmpty() ? Runtime.version().feature() : Integer.parseInt(asked);
    Process java =
        new ProcessBuilder(AgentProcess.javaHome().resolve("bin").resolve("java").toString(), "-version")
            .redirectErrorStream(true)
            .start();
    String version = new String(java.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(java.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(version).containsPattern("version \"" + expected + "[.\"]");
  }
}
