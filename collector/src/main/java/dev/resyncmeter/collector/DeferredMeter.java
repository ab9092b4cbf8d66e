package dev.resyncmeter.collector;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.DoubleSupplier;

/**
 * A Micrometer meter described when the collector needs it and registered once the registry exists
 * (see {@link OnDemandRegistry}): a counter over the collector's own {@link LongAdder}, or a gauge
 * over a supplier. Describing one loads no Micrometer class.
 */
final class DeferredMeter {

  private final String name;
  private final String description;
  private final String baseUnit;
  private final String[] tags;
  private final LongAdder count;
  private final DoubleSupplier value;

  private DeferredMeter(String name, String description, String baseUnit, String[] tags, LongAdder count, DoubleSupplier value) {
    this.name = name;
    this.description = description;
    this.baseUnit = baseUnit;
    this.tags = tags;
    this.count = count;
    this.value = value;
  }

  /** A counter exported as {@code name} with {@code _total}, reading {@code count}; tags are key, value pairs. */
  static DeferredMeter counter(String name, String description, LongAdder count, String... tags) {
    return new DeferredMeter(name, description, null, tags, count, null);
  }

  /** A gauge reading {@code value} at every scrape; tags are key, value pairs. */
  static DeferredMeter gauge(String name, String description, String baseUnit, DoubleSupplier value, String... tags) {
    return new DeferredMeter(name, description, baseUnit, tags, null, value);
  }

  void registerOn(MeterRegistry registry) {
    if (count != null) {
      FunctionCounter.builder(name, count, LongAdder::sum).description(description).tags(tags).register(registry);
    } else {
      Gauge.builder(name, value, DoubleSupplier::getAsDouble).description(description).baseUnit(baseUnit).tags(tags).strongReference(true).register(registry);
    }
  }
}
