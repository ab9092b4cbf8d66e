package dev.resyncmeter.agent.cli;

import dev.resyncmeter.report.ReportCommand;
import java.util.Arrays;

/**
 * {@code java -jar resync-meter-agent.jar attach|list|report ...}: the agent jar's commands, run in a
 * JVM of their own, never inside the host.
 */
public final class Main {

  static final String USAGE =
      String.join(
          "\n",
          "usage: java -jar resync-meter-agent.jar COMMAND",
          "  attach <pid | part of the main class name> [agent arguments]   load the agent into a running JVM",
          "  list                                                           the JVMs it could attach to",
          "  report [--url URL] [--window 30s] [--format table|json] [FILE [FILE]]   the resync cost report",
          "As a Java agent: java -javaagent:resync-meter-agent.jar[=host=H,port=P] -jar your-controller.jar");

  private Main() {}

  public static void main(String[] args) {
    String command = args.length == 0 ? "" : args[0];
    String[] rest = args.length == 0 ? args : Arrays.copyOfRange(args, 1, args.length);
    int exit =
        switch (command) {
          case "attach" -> AttachCommand.run(rest, System.out, System.err);
          case "list" -> ListCommand.run(rest, System.out, System.err);
          case "report" -> ReportCommand.run(rest, System.out, System.err);
          case "--help", "-h", "help" -> {
            System.out.println(USAGE);
            yield 0;
          }
          default -> {
            System.err.println(command.isEmpty() ? "resync-meter: no command" : "resync-meter: unknown command '" + command + "'");
            System.err.println(USAGE);
            yield 2;
          }
        };
    System.exit(exit);
  }
}
