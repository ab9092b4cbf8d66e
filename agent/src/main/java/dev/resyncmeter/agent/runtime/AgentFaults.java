package dev.resyncmeter.agent.runtime;

import dev.resyncmeter.collector.ResyncMetrics;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Where the agent's own faults go: counted in {@code resync_meter_errors_total{component}} and logged
 * at most once a minute per component, so a fault on a hot path never floods the host's stderr.
 */
public final class AgentFaults {

  private static final long LOG_INTERVAL_NANOS = 60_000_000_000L;
  private static final Map<String, AtomicLong> LAST_LOGGED = new ConcurrentHashMap<>();
  private static final Map<String, AtomicLong> SINCE_LOGGED = new ConcurrentHashMap<>();

  private AgentFaults() {}

  /** Counts a fault that something else reports in its own words (a unit's switch-off line). */
  public static void count(String component) {
    try {
      ResyncMetrics metrics = AgentMetrics.get();
      if (metrics != null) {
        metrics.error(component);
      }
    } catch (Throwable ignored) {
      // Counting a fault must never become a fault in the host.
    }
  }

  /**
   * The one place a fault inside woven advice lands: every advice suppresses what it (or the bridge it
   * calls) throws and hands it here, with its unit's component ({@code LayoutCheckedAdvice}).
   */
  public static void adviceFault(Throwable fault, String component) {
    record(component, fault);
  }

  public static void record(String component, Throwable fault) {
    count(component);
    try {
      long suppressed = SINCE_LOGGED.computeIfAbsent(component, c -> new AtomicLong()).incrementAndGet();
      AtomicLong last = LAST_LOGGED.computeIfAbsent(component, c -> new AtomicLong(System.nanoTime() - LOG_INTERVAL_NANOS));
      long now = System.nanoTime();
      long previous = last.get();
      if (now - previous >= LOG_INTERVAL_NANOS && last.compareAndSet(previous, now)) {
        SINCE_LOGGED.get(component).addAndGet(-suppressed);
        AgentLog.warnLater(
            "internal fault in {} ({} since the last report; the host is unaffected): {}",
            component,
            suppressed,
            String.valueOf(fault));
      }
    } catch (Throwable ignored) {
      // Reporting a fault must never become a fault in the host.
    }
  }
}
