package dev.resyncmeter.examples;

import dev.resyncmeter.examples.demo.Demo;
import dev.resyncmeter.examples.scenario.ResyncScenario;
import java.util.Arrays;

/** {@code java -jar resync-meter-examples.jar [demo|scenario] [args...]}: demo by default. */
public final class Main {

  private Main() {}

  public static void main(String[] args) throws Exception {
    String command = args.length == 0 ? "demo" : args[0];
    String[] rest = args.length == 0 ? args : Arrays.copyOfRange(args, 1, args.length);
    switch (command) {
      case "demo" -> Demo.main(rest);
      case "scenario" -> ResyncScenario.main(rest);
      default -> {
        System.err.println("usage: java -jar resync-meter-examples.jar [demo [--kubeconfig FILE] | scenario [N K M R]]");
        System.exit(2);
      }
    }
  }
}
