package dev.resyncmeter.agent.start;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Beside another Java agent the agent weaves before the host's main: how it tells that one is there. */
class OtherJavaAgentsTest {

  @Test
  void anotherJavaAgentOnTheCommandLineOrInTheVariablesIsSeen() {
    Path own = Path.of("agent/target/resync-meter-agent.jar");
    String ownAbsolute = own.toAbsolutePath().toString();
    assertThat(OtherJavaAgents.otherJavaAgentIn(List.of("java", "-javaagent:agent/target/resync-meter-agent.jar=port=0", "-jar", "app.jar"), own))
        .isFalse();
    assertThat(OtherJavaAgents.otherJavaAgentIn(List.of("-javaagent:" + ownAbsolute, "-Xmx1g"), own)).isFalse();
    assertThat(OtherJavaAgents.otherJavaAgentIn(List.of("-javaagent:agent/target/./resync-meter-agent.jar"), own)).isFalse();
    assertThat(OtherJavaAgents.otherJavaAgentIn(List.of("-javaagent:/opt/otel/opentelemetry-javaagent.jar", "-javaagent:" + ownAbsolute), own))
        .isTrue();
    assertThat(OtherJavaAgents.otherJavaAgentIn(List.of("-javaagent:" + ownAbsolute, "-javaagent:jmx.jar=127.0.0.1:9404:c.yaml"), own)).isTrue();
    assertThat(OtherJavaAgents.otherJavaAgentIn(List.of("@/tmp/jvm-arguments"), own)).as("an argument file cannot be told").isTrue();
  }

  /** Prints the command line as the agent reads it, one argument per line. */
  public static final class PrintCommandLine {
    public static void main(String[] args) {
      System.out.print(String.join("\n", OtherJavaAgents.commandLine()));
    }
  }

  @Test
  void theCommandLineIsReadWholeHoweverLongTheClassPath() throws Exception {
    // the JDK's own reading gives no arguments past 4096 bytes; the agent then had to assume another agent
    String classPath = System.getProperty("java.class.path") + File.pathSeparator + "/no/such/folder/padding".repeat(300);
    Process java =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                classPath,
                PrintCommandLine.class.getName(),
                "an-argument-after-a-long-class-path")
            .redirectErrorStream(true)
            .start();
    String printed = new String(java.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(java.waitFor(60, TimeUnit.SECONDS)).isTrue();

    assertThat(classPath.length()).isGreaterThan(4096);
    assertThat(printed.lines().toList()).as(printed).containsSubsequence("-cp", classPath, PrintCommandLine.class.getName(), "an-argument-after-a-long-class-path");
  }
}
