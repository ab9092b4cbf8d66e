package dev.resyncmeter.agent;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.helpers.MessageFormatter;

/**
 * The agent's logger: the SLF4J simple binding inside the agent jar (relocated, so the host's own
 * logging is never touched), writing {@code [resync-meter] LEVEL message} lines to stderr.
 *
 * <p>Lines written while the host runs go through {@link #warnLater}: a host thread only drops the
 * line into a small queue, and one daemon thread of ours writes it, so no handler, worker or class
 * loading thread of the host ever waits for stderr.
 */
public final class AgentLog {

  private static final Logger LOG = configure();
  private static final BlockingQueue<String> PENDING = new ArrayBlockingQueue<>(64);
  private static volatile Thread writer;

  private AgentLog() {}

  private static Logger configure() {
    // These keys are relocated with the binding in the agent jar, so they configure only our copy.
    // The date format is a quoted literal: the simple binding's one way to print a fixed prefix.
    setIfAbsent("org.slf4j.simpleLogger.logFile", "System.err");
    setIfAbsent("org.slf4j.simpleLogger.showDateTime", "true");
    setIfAbsent("org.slf4j.simpleLogger.dateTimeFormat", "'[resync-meter]'");
    setIfAbsent("org.slf4j.simpleLogger.showThreadName", "false");
    setIfAbsent("org.slf4j.simpleLogger.showLogName", "false");
    setIfAbsent("org.slf4j.simpleLogger.levelInBrackets", "false");
    return LoggerFactory.getLogger("resync-meter");
  }

  private static void setIfAbsent(String key, String value) {
    if (System.getProperty(key) == null) {
      System.setProperty(key, value);
    }
  }

  /** For the agent's start, which runs before the host's main: writes at once. */
  public static Logger get() {
    return LOG;
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
        LOG.warn(PENDING.take());
      } catch (InterruptedException e) {
        return;
      } catch (Throwable ignored) {
        // a broken stderr costs the line, never the thread
      }
    }
  }
}
