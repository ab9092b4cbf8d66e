package dev.resyncmeter.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A JVM the benchmark starts (the e2e program, the start-up probes), on the JDK running the
 * benchmark, with the bench jar as its class path. Output is collected line by line; every wait is
 * bounded and a JVM still running at its deadline is killed.
 */
public final class ForkedJvm implements AutoCloseable {

  private final Process process;
  private final List<String> command;
  private final List<String> stdout = new CopyOnWriteArrayList<>();
  private final List<String> stderr = new CopyOnWriteArrayList<>();
  private final Thread[] pumps;
  private volatile long exitNanos;

  private ForkedJvm(List<String> command) throws IOException {
    this.command = command;
    ProcessBuilder builder = new ProcessBuilder(command);
    // The agent's own settings come only from its -javaagent arguments here.
    builder.environment().keySet().removeIf(k -> k.startsWith("RESYNC_METER_") || k.startsWith("OTEL_") || k.equals("JAVA_TOOL_OPTIONS"));
    this.process = builder.start();
    this.pumps = new Thread[] {pump(process.getInputStream(), stdout, "stdout"), pump(process.getErrorStream(), stderr, "stderr")};
  }

  /** {@code java <jvmOptions> <rest>}: rest is a main class with its arguments, or {@code -version}. */
  public static ForkedJvm start(List<String> jvmOptions, List<String> rest) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(java().toString());
    command.addAll(jvmOptions);
    command.addAll(rest);
    return new ForkedJvm(command);
  }

  /** {@code java <jvmOptions> -cp <bench jar> <mainClass> <args>}. */
  public static ForkedJvm startMain(List<String> jvmOptions, Class<?> mainClass, List<String> args) throws IOException {
    List<String> rest = new ArrayList<>(List.of("-cp", System.getProperty("java.class.path"), mainClass.getName()));
    rest.addAll(args);
    return start(jvmOptions, rest);
  }

  public static Path java() {
    return Path.of(System.getProperty("java.home"), "bin", "java");
  }

  private static Thread pump(InputStream in, List<String> into, String name) {
    Thread thread =
        new Thread(
            () -> {
              try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                for (String line; (line = reader.readLine()) != null; ) {
                  into.add(line);
                }
              } catch (IOException ignored) {
                // the process ended
              }
            },
            "forked-jvm-" + name);
    thread.setDaemon(true);
    thread.start();
    return thread;
  }

  /** Waits for the exit; kills the JVM and fails when it does not come in time. */
  public int waitFor(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException("no exit within " + timeout + "\n" + transcript());
    }
    exitNanos = System.nanoTime();
    for (Thread pump : pumps) {
      pump.join(2_000); // the last lines
    }
    return process.exitValue();
  }

  /** {@link System#nanoTime()} when {@link #waitFor} saw the exit: a start-up probe's end. */
  public long exitNanos() {
    return exitNanos;
  }

  /** Waits until a stdout line matches; fails when it does not come in time or the JVM ends first. */
  public String awaitStdout(Predicate<String> match, Duration timeout) throws InterruptedException {
    return await(stdout, match, timeout);
  }

  /** Waits until a stderr line matches (an agent's start line); same bounds as {@link #awaitStdout}. */
  public String awaitStderr(Predicate<String> match, Duration timeout) throws InterruptedException {
    return await(stderr, match, timeout);
  }

  private String await(List<String> lines, Predicate<String> match, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      for (String line : lines) {
        if (match.test(line)) {
          return line;
        }
      }
      if (!process.isAlive()) {
        for (Thread pump : pumps) {
          pump.join(2_000);
        }
        for (String line : lines) {
          if (match.test(line)) {
            return line;
          }
        }
        throw new IllegalStateException("exited (" + process.exitValue() + ") before the expected line\n" + transcript());
      }
      Thread.sleep(5);
    }
    throw new IllegalStateException("no expected line within " + timeout + "\n" + transcript());
  }

  /** Writes one line to the JVM's standard input: the e2e program's commands. */
  public void send(String line) throws IOException {
    process.getOutputStream().write((line + "\n").getBytes(StandardCharsets.UTF_8));
    process.getOutputStream().flush();
  }

  /** Closes the JVM's standard input: the e2e program's signal to end. */
  public void closeInput() throws IOException {
    process.getOutputStream().close();
  }

  public List<String> stdout() {
    return List.copyOf(stdout);
  }

  public List<String> stderr() {
    return List.copyOf(stderr);
  }

  public String transcript() {
    return "--- command\n" + String.join(" ", command) + "\n--- stdout\n" + String.join("\n", stdout) + "\n--- stderr\n" + String.join("\n", stderr);
  }

  @Override
  public void close() {
    process.destroyForcibly();
  }
}
