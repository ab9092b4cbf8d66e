package dev.resyncmeter.agent.runtime;

import java.io.PrintStream;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import org.slf4j.helpers.MessageFormatter;

/**
 * The agent's log lines, {@code [resync-meter] LEVEL message} on stderr. The agent's start writes
 * its lines at once; Micrometer's go through the agent's own SLF4J provider ({@link AgentLogProvider})
 * to the same place, in the same format.
 *
 * <p>Lines written while the host runs go through {@link #later}: a host thread only drops the line
 * into a small queue, and one daemon thread of ours writes it, so no handler, worker or class
 * loading thread of the host ever waits for stderr.
 */
public final class AgentLog {

  private static final String PREFIX = "[resync-meter] ";
  private static final BlockingQueue<String> PENDING = new ArrayBlockingQueue<>(64);
  private static volatile Thread writer;

  private AgentLog() {}

  /** For the agent's start, which runs before the host's main: writes at once. */
  public static void info(String format, Object... arguments) {
    write("INFO", MessageFormatter.arrayFormat(format, arguments).getMessage());
  }

  /** For the agent's start, which runs before the host's main: writes at once. */
  public static void warn(String format, Object... arguments) {
    write("WARN", MessageFormatter.arrayFormat(format, arguments).getMessage());
  }

  private static void write(String level, String message) {
    write(level + " " + message);
  }

  private static void write(String line) {
    PrintStream err = System.err;
    err.println(PREFIX + line);
    err.flush();
  }

  /**
   * A warning from a host thread: queued without waiting and written by the agent's log thread. When
   * the queue is full the line is dropped; the faults behind it are still counted in metrics.
   */
  public static void warnLater(String format, Object... arguments) {
    later("WARN", MessageFormatter.arrayFormat(format, arguments).getMessage());
  }

  /** A line of {@code level} from any thread, written by the agent's log thread (see {@link #warnLater}). */
  static void later(String level, String message) {
    PENDING.offer(level + " " + message);
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
        write(PENDING.take());
      } catch (InterruptedException e) {
        return;
      } catch (Throwable ignored) {
        // a broken stderr costs the line, never the thread
      }
    }
  }
}
