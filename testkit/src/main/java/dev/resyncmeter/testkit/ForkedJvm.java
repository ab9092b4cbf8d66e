package dev.resyncmeter.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A process a test or the benchmark starts, usually a JVM with an agent: its standard output and
 * error are collected line by line, every wait is bounded, and a wait that ends without what it
 * waited for throws an {@link IllegalStateException} with the command and both streams (an exception,
 * not an error: the benchmark reports it as a failed section and goes on). {@link #close()} kills it.
 */
public class ForkedJvm implements AutoCloseable {

  /** resync-meter's own variables: a forked JVM's agent takes its settings from its arguments only. */
  public static final Predicate<String> AGENT_VARIABLES = name -> name.startsWith("RESYNC_METER_");

  /** Those and the variables that configure peer agents or add JVM options (OpenTelemetry's, {@code JAVA_TOOL_OPTIONS}). */
  public static final Predicate<String> ANY_AGENT_VARIABLES =
      AGENT_VARIABLES.or(name -> name.startsWith("OTEL_") || name.equals("JAVA_TOOL_OPTIONS"));

  private final Process process;
  private final List<String> command;
  private final Output stdout;
  private final Output stderr;
  private volatile long exitNanos;

  /**
   * Starts {@code command} with this process's environment less the variables {@code unset} names,
   * plus {@code environment}.
   */
  protected ForkedJvm(List<String> command, Map<String, String> environment, Predicate<String> unset) throws IOException {
    this.command = List.copyOf(command);
    ProcessBuilder builder = new ProcessBuilder(this.command);
    builder.environment().keySet().removeIf(unset);
    builder.environment().putAll(environment);
    this.process = builder.start();
    this.stdout = new Output(process.getInputStream(), "stdout");
    this.stderr = new Output(process.getErrorStream(), "stderr");
  }

  /** Starts {@code command} as {@link #ForkedJvm(List, Map, Predicate)} says. */
  public static ForkedJvm start(List<String> command, Map<String, String> environment, Predicate<String> unset) throws IOException {
    return new ForkedJvm(command, environment, unset);
  }

  /** {@code java <jvmOptions> <rest>} on this JVM's java: rest is {@code -jar} and its jar, a main class, or {@code -version}. */
  public static ForkedJvm startJava(List<String> jvmOptions, List<String> rest, Predicate<String> unset) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(java().toString());
    command.addAll(jvmOptions);
    command.addAll(rest);
    return new ForkedJvm(command, Map.of(), unset);
  }

  /** {@code java <jvmOptions> -cp <this JVM's class path> <mainClass> <args>}. */
  public static ForkedJvm startMain(List<String> jvmOptions, Class<?> mainClass, List<String> args, Predicate<String> unset) throws IOException {
    return startMain(Path.of(System.getProperty("java.home")), jvmOptions, mainClass, args, unset);
  }

  /** The same on the {@code java} of the JDK at {@code javaHome}. */
  public static ForkedJvm startMain(Path javaHome, List<String> jvmOptions, Class<?> mainClass, List<String> args, Predicate<String> unset)
      throws IOException {
    List<String> command = new ArrayList<>();
    command.add(java(javaHome).toString());
    command.addAll(jvmOptions);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass.getName()));
    command.addAll(args);
    return new ForkedJvm(command, Map.of(), unset);
  }

  /** The {@code java} launcher of the JVM running this code. */
  public static Path java() {
    return java(Path.of(System.getProperty("java.home")));
  }

  /** The {@code java} launcher of the JDK at {@code javaHome}. */
  public static Path java(Path javaHome) {
    return javaHome.resolve("bin").resolve("java");
  }

  /** Waits until a stdout line matches; fails when none comes in time or the stream ends first. */
  public String awaitStdout(Predicate<String> match, Duration timeout) throws InterruptedException {
    return stdout.await(match, timeout);
  }

  /** Waits until a stderr line matches (an agent's start line); bounded as {@link #awaitStdout}. */
  public String awaitStderr(Predicate<String> match, Duration timeout) throws InterruptedException {
    return stderr.await(match, timeout);
  }

  /** The metrics URL resync-meter announced in its start line, waiting at most {@code timeout} for it. */
  public String metricsUrl(Duration timeout) throws InterruptedException {
    return Scrape.resyncMeterUrl(awaitStderr(line -> Scrape.resyncMeterUrl(line) != null, timeout));
  }

  public List<String> stdout() {
    return stdout.lines();
  }

  public List<String> stderr() {
    return stderr.lines();
  }

  /** resync-meter's own lines: those it prefixes with {@code [resync-meter]}. */
  public List<String> agentLines() {
    return stderr().stream().filter(l -> l.startsWith("[resync-meter]")).toList();
  }

  /** Writes one line to the process's standard input. */
  public void send(String line) throws IOException {
    process.getOutputStream().write((line + "\n").getBytes(StandardCharsets.UTF_8));
    process.getOutputStream().flush();
  }

  /** Closes the process's standard input: the end signal of the programs that read it. */
  public void closeInput() throws IOException {
    process.getOutputStream().close();
  }

  /** Closes the standard input and waits for the exit, as {@link #waitFor} does. */
  public int closeInputAndWait(Duration timeout) throws IOException, InterruptedException {
    closeInput();
    return waitFor(timeout);
  }

  /** Waits for the exit and the last lines; kills the process and fails when the exit does not come in time. */
  public int waitFor(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException("no exit within " + timeout + "\n" + transcript());
    }
    exitNanos = System.nanoTime();
    stdout.drain();
    stderr.drain();
    return process.exitValue();
  }

  /** {@link System#nanoTime()} when {@link #waitFor} saw the exit: a start-up probe's end. */
  public long exitNanos() {
    return exitNanos;
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  public long pid() {
    return process.pid();
  }

  /** The command and everything the process printed so far. */
  public String transcript() {
    return "--- command\n" + String.join(" ", command) + "\n--- stdout\n" + String.join("\n", stdout.lines()) + "\n--- stderr\n" + String.join("\n", stderr.lines());
  }

  /** Asks the process to end (SIGTERM), then kills it if it has not ended within {@code grace}. */
  public void stop(Duration grace) throws InterruptedException {
    stop(process, grace);
  }

  /** Ends {@code process} as {@link #stop(Duration)} does: SIGTERM, then after {@code grace} SIGKILL. */
  public static void stop(Process process, Duration grace) throws InterruptedException {
    process.destroy();
    if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  /** Kills the process (it has usually ended already). */
  @Override
  public void close() {
    process.destroyForcibly();
  }

  /** One of the process's output streams, read into lines by a daemon thread; waiters are woken by each line. */
  private final class Output {

    private final List<String> lines = new ArrayList<>();
    private final String name;
    private final Thread pump;
    private boolean ended;

    Output(InputStream in, String name) {
      this.name = name;
      this.pump = new Thread(() -> read(in), "forked-jvm-" + process.pid() + "-" + name);
      pump.setDaemon(true);
      pump.start();
    }

    private void read(InputStream in) {
      try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
        for (String line; (line = reader.readLine()) != null; ) {
          synchronized (this) {
            lines.add(line);
            notifyAll();
          }
        }
      } catch (IOException ignored) {
        // the process ended
      } finally {
        synchronized (this) {
          ended = true;
          notifyAll();
        }
      }
    }

    synchronized List<String> lines() {
      return List.copyOf(lines);
    }

    /** The first line (from the start) that matches, waiting for it at most {@code timeout}. */
    String await(Predicate<String> match, Duration timeout) throws InterruptedException {
      long deadline = System.nanoTime() + timeout.toNanos();
      int next = 0;
      synchronized (this) {
        while (true) {
          for (; next < lines.size(); next++) {
            if (match.test(lines.get(next))) {
              return lines.get(next);
            }
          }
          long remaining = deadline - System.nanoTime();
          if (ended || remaining <= 0) {
            break;
          }
          TimeUnit.NANOSECONDS.timedWait(this, remaining);
        }
      }
      String why = ended ? "the process closed its " + name + " (" + exit() + ") before a matching line" : "no matching line on " + name + " within " + timeout;
      throw new IllegalStateException(why + "\n" + transcript());
    }

    /** Waits, at most 2 s, until the stream's last lines are read. */
    void drain() throws InterruptedException {
      pump.join(2_000);
    }

    private String exit() throws InterruptedException {
      return process.waitFor(2, TimeUnit.SECONDS) ? "exit " + process.exitValue() : "still running";
    }
  }
}
