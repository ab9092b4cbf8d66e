package dev.resyncmeter.examples.e2e;

import dev.resyncmeter.testkit.ForkedJvm;
import dev.resyncmeter.testkit.Jdks;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A forked JVM running the examples jar with the real agent jar attached, as a user would run it:
 * {@code java -javaagent:agent/target/resync-meter-agent.jar=ARGS -jar resync-meter-examples.jar ...}.
 * Its output is collected line by line; every wait is bounded ({@link ForkedJvm}).
 */
final class AgentProcess extends ForkedJvm {

  private AgentProcess(List<String> command, Map<String, String> environment) throws IOException {
    super(command, environment, AGENT_VARIABLES);
  }

  /** Starts the examples jar with the agent; {@code agentArgs} null means no {@code =...} part. */
  static AgentProcess start(String agentArgs, Map<String, String> environment, String... command) throws IOException {
    return start(List.of(), agentArgs, environment, command);
  }

  /** Starts the examples jar with the agent and these JVM options. */
  static AgentProcess start(List<String> jvmOptions, String agentArgs, Map<String, String> environment, String... command)
      throws IOException {
    List<String> options = new ArrayList<>(jvmOptions);
    options.add(javaagent(agentArgs));
    return launch(javaHome(), options, examplesJarLaunch(), environment, command);
  }

  /**
   * Starts the examples jar on {@code javaHome} with other JVM options (another agent, say) before
   * and after the agent's {@code -javaagent}: the order in which the JVM loads agents.
   */
  static AgentProcess startBeside(
      Path javaHome, List<String> before, List<String> after, Map<String, String> environment, String... command)
      throws IOException {
    List<String> options = new ArrayList<>(before);
    options.add(javaagent("host=127.0.0.1,port=0"));
    options.addAll(after);
    return launch(javaHome, options, examplesJarLaunch(), environment, command);
  }

  /**
   * Starts the examples with the agent and {@code first} ahead of the examples jar on the class path,
   * so the classes in it replace the libraries' own (the jar's manifest still brings its lib/).
   */
  static AgentProcess startWithClassesFirst(Path first, String agentArgs, String... command) throws IOException {
    String classPath = first + java.io.File.pathSeparator + examplesJar();
    return launch(
        javaHome(), List.of(javaagent(agentArgs)), List.of("-cp", classPath, "dev.resyncmeter.examples.Main"), Map.of(), command);
  }

  /** Starts the examples jar without the agent: the host as it runs on its own. */
  static AgentProcess startWithoutAgent(String... command) throws IOException {
    return startWithoutAgent(List.of(), command);
  }

  /** Starts the examples jar without the agent, with these environment variables set (an empty value stands for unset). */
  static AgentProcess startWithoutAgent(Map<String, String> environment, String... command) throws IOException {
    return launch(javaHome(), List.of(), examplesJarLaunch(), environment, command);
  }

  /** Starts the examples jar without the agent, with these JVM options: the same program for comparison. */
  static AgentProcess startWithoutAgent(List<String> jvmOptions, String... command) throws IOException {
    return launch(javaHome(), jvmOptions, examplesJarLaunch(), Map.of(), command);
  }

  /**
   * Starts the examples with the agent on the JVM in {@code javaHome}; {@code launch} is what goes
   * between the agent and the command: {@code -jar <examples jar>}, or {@code -cp <class path>
   * dev.resyncmeter.examples.Main} to run them on another client-java's libraries.
   */
  static AgentProcess start(Path javaHome, List<String> launch, String agentArgs, String... command) throws IOException {
    return launch(javaHome, List.of(javaagent(agentArgs)), launch, Map.of(), command);
  }

  /**
   * The JDK the forked JVMs run on: with {@code -Dresyncmeter.testJdk=N} a JDK N found by {@link Jdks}
   * (the build names 17 in its first pass of the end-to-end tests, 25 in its second), else the one
   * running the tests.
   */
  static Path javaHome() {
    String feature = System.getProperty("resyncmeter.testJdk", "");
    return feature.isEmpty() ? Path.of(System.getProperty("java.home")) : Jdks.home(Integer.parseInt(feature));
  }

  private static String javaagent(String agentArgs) {
    return "-javaagent:" + agentJar() + (agentArgs == null ? "" : "=" + agentArgs);
  }

  private static List<String> examplesJarLaunch() {
    return List.of("-jar", examplesJar().toString());
  }

  private static AgentProcess launch(
      Path javaHome, List<String> jvmOptions, List<String> launch, Map<String, String> environment, String... command)
      throws IOException {
    List<String> line = new ArrayList<>();
    line.add(java(javaHome).toString());
    line.addAll(jvmOptions);
    line.addAll(launch);
    line.addAll(List.of(command));
    return new AgentProcess(line, environment);
  }

  static Path agentJar() {
    return existing(System.getProperty("resyncmeter.agentJar", "target/resync-meter-agent.jar"));
  }

  static Path examplesJar() {
    return existing(System.getProperty("resyncmeter.examplesJar", "target/resync-meter-examples.jar"));
  }

  private static Path existing(String path) {
    Path resolved = Path.of(path).toAbsolutePath().normalize();
    if (!Files.isRegularFile(resolved)) {
      throw new IllegalStateException(resolved + " is missing: run `mvn verify` from the top folder, which builds it first");
    }
    return resolved;
  }

  /** The {@code truth <series> <count>} lines the scenario printed. */
  Map<String, Long> truth() {
    Map<String, Long> truth = new java.util.LinkedHashMap<>();
    for (String line : stdout()) {
      if (line.startsWith("truth ")) {
        int split = line.lastIndexOf(' ');
        truth.put(line.substring("truth ".length(), split), Long.parseLong(line.substring(split + 1)));
      }
    }
    return truth;
  }

  /** Ends a process that waits for its standard input to close, and asserts it exited with 0. */
  static void end(AgentProcess process) throws IOException, InterruptedException {
    if (process == null) {
      return;
    }
    try {
      int exit = process.closeInputAndWait(Duration.ofSeconds(30));
      if (exit != 0) {
        throw new AssertionError("exit code " + exit + "\n" + process.transcript());
      }
    } finally {
      process.close();
    }
  }
}
