package dev.resyncmeter.agent;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's logger: the SLF4J simple binding inside the agent jar (relocated, so the host's own
 * logging is never touched), writing {@code [resync-meter] LEVEL message} lines to stderr.
 */
public final class AgentLog {

  private static final Logger LOG = configure();

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

  public static Logger get() {
    return LOG;
  }
}
