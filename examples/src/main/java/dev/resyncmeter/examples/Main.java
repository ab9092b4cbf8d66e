package dev.resyncmeter.examples;

import dev.resyncmeter.examples.demo.Demo;
import dev.resyncmeter.examples.scenario.ResyncScenario;
import java.util.Arrays;

/** {@code java -jar resync-meter-examples.jar [demo|scenario] [args...]}: demo by default. */
public final class Main {

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
      default -> {
        System.err.println("usage: java -jar resync-meter-examples.jar [demo [--kubeconfig FILE] | scenario [N K M R] | reconcile-scenario [phases|attach|api-requests|stress] | memory-scenario [KEYS OBJECTS] | mock-scenario | fabric8-scenario [--kind ConfigMap|Secret] | josdk-scenario | mixed-scenario | echo-scenario | fabric8-echo-scenario | josdk-echo-scenario | exit CODE | idle | properties]");
        System.exit(2);
      }
    }
  }
}
