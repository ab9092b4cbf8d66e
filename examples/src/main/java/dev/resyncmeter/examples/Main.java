package dev.resyncmeter.examples;

import dev.resyncmeter.examples.demo.Demo;
import dev.resyncmeter.examples.scenario.ResyncScenario;
import java.util.Arrays;

/**
 * {@code java -jar resync-meter-examples.jar [demo [OPTIONS]]}: the demo by default. The other
 * commands are the scenarios and stand-in hosts of the end-to-end tests; the usage names only what a
 * user runs.
 */
public final class Main {

  static final String USAGE =
      String.join(
          "\n",
          "usage: java -jar examples/target/resync-meter-examples.jar [demo [OPTIONS]]",
          "  demo [OPTIONS]   the sample controllers, with a report every 10 s and of the whole run from the",
          "                   resync-meter agent in the same JVM (the default command; demo --help lists its options)",
          "  --help, -h       this text",
          "With the agent, from the repository's root: ./demo, or",
          "  java -javaagent:agent/target/resync-meter-agent.jar -jar examples/target/resync-meter-examples.jar demo",
          "Without it, to try attach: start the demo as above without -javaagent, then in another terminal",
          "  java -jar agent/target/resync-meter-agent.jar attach resync-meter-examples port=0",
          "(The jar's other commands are the scenarios of the project's end-to-end tests.)");

  private Main() {}

  /** A host that does nothing but say it ran and exit with its own code: for the agent's tests. */
  private static void exit(String[] args) {
    System.out.println("host ran");
    System.exit(args.length > 0 ? Integer.parseInt(args[0]) : 0);
  }

  /** A host that says it ran and stays up until its standard input closes. */
  private static void idle() throws java.io.IOException {
    System.out.println("host ran");
    System.out.flush();
    while (System.in.read() >= 0) {
      // wait for the end of input
    }
  }

  /** Prints the names of the JVM's system properties, one a line, sorted: what an agent may have added. */
  private static void properties() {
    new java.util.TreeSet<>(System.getProperties().stringPropertyNames()).forEach(name -> System.out.println("property " + name));
  }

  public static void main(String[] args) throws Exception {
    String command = args.length == 0 ? "demo" : args[0];
    String[] rest = args.length == 0 ? args : Arrays.copyOfRange(args, 1, args.length);
    switch (command) {
      case "demo" -> Demo.main(rest);
      case "scenario" -> ResyncScenario.main(rest);
      case "handler-shapes-scenario" -> ResyncScenario.withHandlerShapes(rest);
      case "reconcile-scenario" -> dev.resyncmeter.examples.scenario.ReconcileScenario.main(rest);
      case "memory-scenario" -> dev.resyncmeter.examples.scenario.MemoryScenario.main(rest);
      case "mock-scenario" -> dev.resyncmeter.examples.scenario.MockScenario.main(rest);
      case "fabric8-scenario" -> dev.resyncmeter.examples.fabric8.Fabric8Scenario.main(rest);
      case "josdk-scenario" -> dev.resyncmeter.examples.josdk.JosdkScenario.main(rest);
      case "mixed-scenario" -> dev.resyncmeter.examples.fabric8.MixedScenario.main(rest);
      case "echo-scenario" -> dev.resyncmeter.examples.scenario.EchoScenario.main(rest);
      case "fabric8-echo-scenario" -> dev.resyncmeter.examples.fabric8.Fabric8EchoScenario.main(rest);
      case "josdk-echo-scenario" -> dev.resyncmeter.examples.josdk.JosdkEchoScenario.main(rest);
      case "exit" -> exit(rest);
      case "idle" -> idle();
      case "properties" -> properties();
      case "--help", "-h", "help" -> System.out.println(USAGE);
      default -> {
        System.err.println("resync-meter-examples: unknown command '" + command + "'");
        System.err.println(USAGE);
        System.exit(2);
      }
    }
  }
}
