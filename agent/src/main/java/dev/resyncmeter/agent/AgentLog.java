package dev.resyncmeter.agent;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.io.PrintStream;
import org.slf4j.helpers.MessageFormatter;

/**
 * The agent's log lines, {@code [resync-meter] LEVEL message} on stderr, in the format of the SLF4J
 * simple binding inside the agent jar (relocated, so the host's own logging is never touched). The
 * agent writes its own lines itself: the binding's start (a date format for the fixed prefix, with the
 * JDK's calendar and locale data) would cost the host's start-up more than all else {@code premain}
 * does. The binding stays configured for Micrometer, which logs through it, with the same format.
 *
 * <p>Lines written while the host runs go through {@link #warnLater}: a host thread only drops the
 * line into a small queue, and one daemon thread of ours writes it, so no handler, worker or class
 * loading thread of the host ever waits for stderr.
 */
public final class AgentLog {

  private static final String PREFIX = "[resync-meter] ";
  private static final BlockingQueue<String> PENDING = new ArrayBlockingQueue<>(64);
  private static volatile Thread writer;

  static {
    configure();
  }

  private AgentLog() {}

  private static void configure() {
    // These keys are relocated with the binding in the agent jar, so they configure only our copy.
    // The date format is a quoted literal: the simple binding's one way to print a fixed prefix.
    setIfAbsent("org.slf4j.simpleLogger.logFile", "System.err");
    setIfAbsent("org.slf4j.simpleLogger.showDateTime", "true");
    setIfAbsent("org.slf4j.simpleLogger.dateTimeFormat", "'[resync-meter]'");
    setIfAbsent("org.slf4j.simpleLogger.showThreadName", "false");
    setIfAbsent("org.slf4j.simpleLogger.showLogName", "false");
    setIfAbsent("org.slf4j.simpleLogger.levelInBrackets", "false");
  }

  private static void setIfAbsent(String key, String value) {
    if (System.getProperty(key) == null) {
      System.setProperty(key, value);
    }
  }

  /** Configures the binding before anything (Micrometer) starts it; it reads its settings only once. */
  public static void init() {
    // the class initializer did it
  }

  /** For the agent's start, which runs before the host's main: writes at once. */
  public static void info(String format, Object... arguments) {
    write("INFO", MessageFormatter.arrayFormat(format, arguments).getMessage());
  }

  /** For the agent's start, which runs before the host's main: writes at once. */
  public static void warn(String format, Object... arguments) {
    write("WARN", MessageFormatter.arrayFormat(format, arguments).getMessage());
  }

  private static void write(String level, String message) {
    PrintStream err = System.err;
    err.println(PREFIX + level + " " + message);
    err.flush();
  }

  /**
   * A warning from a host thread: queued without waiting and written by the agent's log thread. When
   * the queue is full the line is dropped; the faults behind it are still counted in metrics.
   */
  public static void warnLater(String format, Object... arguments) {
    PENDING.offer(MessageFormatter.arrayFormat(format, arguments).getMessage());
    if (writer == null) {
      startWriter();
    }
  }

  private static synchronized void startWriter() {
    if (writer != null) {
      return;
    }
    // Started from whichever host thread logs first: it must inherit none of that thread's state.
    Thread thread = new Thread(null, AgentLog::writeQueuedLines, "resync-meter-log", 0, false);
    thread.setDaemon(true);
    thread.setContextClassLoader(null);
    thread.start();
    writer = thread;
  }

  private static void writeQueuedLines() {
    while (true) {
      try {
        write("WARN", PENDING.take());
      } catch (InterruptedException e) {
        return;
      } catch (Throwable ignored) {
        // a broken stderr costs the line, never the thread
      }
    }
  }
}
