package dev.resyncmeter.collector;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The distinct values one label may take, capped so that a host with an unbounded supply of kinds,
 * handler classes, controllers or queues cannot grow the agent's meters (and the scrape) without
 * bound. The first {@code max} values are exported as they are; any later one is exported as
 * {@link #OVERFLOW}, and each time that happens is counted in
 * {@code resync_meter_label_overflow_total{label}}. Only values are kept, never objects, so the
 * memory this takes is bounded by the cap.
 */
final class CappedLabel {

  /**
   * What a label value past its label's cap is exported as. Angle brackets keep it apart from real
   * values: a Kubernetes kind is alphanumeric and a Java class name cannot hold them; only a controller
   * named so on purpose (controller names are free text) could meet it.
   */
  static final String OVERFLOW = "<overflow>";

  private final int max;
  private final Set<String> admitted = ConcurrentHashMap.newKeySet();
  /** Set once {@code max} values are admitted: from then on a new value needs no lock to be refused. */
  private volatile boolean full;
  private final LongAdder overflows = new LongAdder();

  CappedLabel(OnDemandRegistry registry, String label, int max) {
    if (max < 1) {
      throw new IllegalArgumentException("a label needs room for at least one value, not " + max);
    }
    this.max = max;
    registry.register(
        DeferredMeter.counter(
            "resync.meter.label.overflow",
            "Times a label value was exported as \""
                + OVERFLOW
                + "\" because its label already had the maximum number of distinct values.",
            overflows,
            "label",
            label));
  }

  /** The value to export for {@code value}: itself while there is room, else the overflow value. */
  String admit(String value) {
    if (admitted.contains(value)) {
      return value;
    }
    if (!full) {
      synchronized (this) {
        if (admitted.contains(value)) {
          return value;
        }
        if (admitted.size() < max) {
          admitted.add(value);
          full = admitted.size() == max;
          return value;
        }
        full = true;
      }
    } else if (admitted.contains(value)) {
      // Admitted by another thread between the first look and reading full (added before full was set).
      return value;
    }
    overflows.increment();
    return OVERFLOW;
  }
}
