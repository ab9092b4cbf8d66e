package dev.resyncmeter.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resyncmeter.report.ReportCommand;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The agent jar's own usage carries the report's usage as the report command prints it (one text, so
 * a new report option shows in both), and {@code --version} is a command.
 */
class MainTest {

  record Run(int exit, String out, String err) {}

  static Run run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void helpShowsEveryCommandAndTheReportsOwnUsage() {
    Run help = run("--help");
    assertThat(help.exit()).isZero();
    assertThat(help.err()).isEmpty();
    assertThat(help.out()).startsWith("usage: java -jar resync-meter-agent.jar COMMAND\n").contains("\n  attach ", "\n  list ", "\n  report ", "\n  --version ");
    Run reportHelp = run("report", "--help");
    assertThat(reportHelp.exit()).isZero();
    assertThat(help.out()).endsWith(reportHelp.out()).contains(ReportCommand.USAGE);
    // what the report takes today, not an older copy of it
    assertThat(help.out()).contains("--format table|json|markdown", "--prometheus URL", "--fail-on CONDITION");
  }

  @Test
  void versionPrintsTheAgentsVersion() {
    Run version = run("--version");
    assertThat(version.exit()).isZero();
    assertThat(version.err()).isEmpty();
    assertThat(version.out()).matches("resync-meter \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?\n");
  }

  @Test
  void noCommandOrAnUnknownOneGivesTheUsageWithExitTwo() {
    Run none = run();
    assertThat(none.exit()).isEqualTo(2);
    assertThat(none.out()).isEmpty();
    assertThat(none.err()).startsWith("resync-meter: no command\nusage: java -jar resync-meter-agent.jar COMMAND\n");
    Run unknown = run("--colour");
    assertThat(unknown.exit()).isEqualTo(2);
    assertThat(unknown.err()).startsWith("resync-meter: unknown command '--colour'\n");
  }
}
