package dev.resyncmeter.agent.runtime;

import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;
import org.slf4j.helpers.NOPMDCAdapter;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * The SLF4J inside the agent jar (relocated, so the host's own is never touched) logs through
 * {@link AgentLog}: Micrometer is its one user. Its INFO, WARN and ERROR lines are written as the
 * agent's own, from the agent's log thread; DEBUG and TRACE are dropped.
 *
 * <p>Not SLF4J's simple binding: that one formats a date for every line's prefix, and its
 * {@code SimpleDateFormat} makes the JDK load the calendar data of every locale it has, about
 * 300 KB the host would keep for good after the first scrape.
 */
public final class AgentLogProvider implements SLF4JServiceProvider {

  private final ILoggerFactory loggers = AgentLogger::new;
  private final IMarkerFactory markers = new BasicMarkerFactory();
  private final MDCAdapter mdc = new NOPMDCAdapter();

  @Override
  public ILoggerFactory getLoggerFactory() {
    return loggers;
  }

  @Override
  public IMarkerFactory getMarkerFactory() {
    return markers;
  }

  @Override
  public MDCAdapter getMDCAdapter() {
    return mdc;
  }

  @Override
  public String getRequestedApiVersion() {
    return "2.0.99";
  }

  @Override
  public void initialize() {}

  /** One named logger; the name is not printed, as the simple binding was configured before. */
  static final class AgentLogger extends LegacyAbstractLogger {

    AgentLogger(String name) {
      this.name = name;
    }

    @Override
    public boolean isTraceEnabled() {
      return false;
    }

    @Override
    public boolean isDebugEnabled() {
      return false;
    }

    @Override
    public boolean isInfoEnabled() {
      return true;
    }

    @Override
    public boolean isWarnEnabled() {
      return true;
    }

    @Override
    public boolean isErrorEnabled() {
      return true;
    }

    @Override
    protected String getFullyQualifiedCallerName() {
      return null;
    }

    @Override
    protected void handleNormalizedLoggingCall(Level level, Marker marker, String format, Object[] arguments, Throwable thrown) {
      if (level.toInt() < Level.INFO.toInt()) {
        return;
      }
      String message = MessageFormatter.basicArrayFormat(format, arguments);
      AgentLog.later(level.name(), thrown == null ? message : message + ": " + thrown);
    }
  }
}
