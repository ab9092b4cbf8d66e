package dev.resyncmeter.collector;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.model.registry.MultiCollector;
import java.util.ArrayList;
import java.util.List;

/**
 * Micrometer's Prometheus registry, built when it is first needed (the first scrape) rather than with
 * the collector. Building it loads and initialises a few hundred classes: at the agent's start that
 * was ~0.4 s on the path of the host's first reconcile, for meters nobody reads before a scrape.
 * Meters described before then wait here and are registered when it is built, so a scrape sees every
 * meter described before it, as if the registry had always been there.
 */
final class OnDemandRegistry {

  private final MultiCollector ownCounts;
  private final List<DeferredMeter> waiting = new ArrayList<>();
  private volatile PrometheusMeterRegistry built;

  /** {@code ownCounts}: the collector's own counts, exported through the registry beside its meters. */
  OnDemandRegistry(MultiCollector ownCounts) {
    this.ownCounts = ownCounts;
  }

  /** Registers {@code meter} now if the registry exists, else when it is built. */
  void register(DeferredMeter meter) {
    PrometheusMeterRegistry registry = built;
    if (registry == null) {
      synchronized (this) {
        registry = built;
        if (registry == null) {
          waiting.add(meter);
          return;
        }
      }
    }
    meter.registerOn(registry);
  }

  /** The registry, built with every meter described so far on the first call. */
  PrometheusMeterRegistry get() {
    PrometheusMeterRegistry registry = built;
    if (registry != null) {
      return registry;
    }
    synchronized (this) {
      if (built == null) {
        PrometheusMeterRegistry made = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        made.getPrometheusRegistry().register(ownCounts);
        for (DeferredMeter meter : waiting) {
          meter.registerOn(made);
        }
        waiting.clear();
        built = made;
      }
      return built;
    }
  }

  /** Whether the registry was built. */
  boolean isBuilt() {
    return built != null;
  }
}
