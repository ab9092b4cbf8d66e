package dev.resyncmeter.agent.cli;

import dev.resyncmeter.agent.start.ResyncMeterAgent;
import dev.resyncmeter.report.ReportCommand;
import java.io.PrintStream;
import java.util.Arrays;

/**
 * {@code java -jar resync-meter-agent.jar attach|list|report ...}: the agent jar's commands, run in a
 * JVM of their own, never inside the host. Its usage shows the report's own, so the two never differ.
 */
public final class Main {

  static final String USAGE =
      String.join(
          "\n",
          "usage: java -jar resync-meter-agent.jar COMMAND",
          "  attach <pid | part of the main class name> [agent arguments]   load the agent into a running JVM",
          "  list                                                           the JVMs it could attach to",
          "  report [OPTIONS] [FILE [FILE]]                                 the resync cost report (below)",
          "  --version                                                      the agent's version",
          "  --help                                                         this text; COMMAND --help, a command's",
          "As a Java agent: java -javaagent:resync-meter-agent.jar[=host=H,port=P] -jar your-controller.jar",
          "",
          ReportCommand.USAGE);

  private Main() {}

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /** Runs the command; its exit code. */
  static int run(String[] args, PrintStream out, PrintStream err) {
    String command = args.length == 0 ? "" : args[0];
    String[] rest = args.length == 0 ? args : Arrays.copyOfRange(args, 1, args.length);
    return switch (command) {
      case "attach" -> AttachCommand.run(rest, out, err);
      case "list" -> ListCommand.run(rest, out, err);
      case "report" -> ReportCommand.run(rest, out, err);
      case "--help", "-h", "help" -> {
        out.println(USAGE);
        yield 0;
      }
      case "--version", "version" -> {
        out.println("resync-meter " + ResyncMeterAgent.version());
        yield 0;
      }
      default -> {
        err.println(command.isEmpty() ? "resync-meter: no command" : "resync-meter: unknown command '" + command + "'");
        err.println(USAGE);
        yield 2;
      }
    };
  }
}
