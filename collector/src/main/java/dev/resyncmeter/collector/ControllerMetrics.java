package dev.resyncmeter.collector;

import io.prometheus.metrics.model.snapshots.Labels;
import java.util.concurrent.atomic.LongAdder;

/**
 * Reconciles of one controller by the trigger of the item they took, and how they ended. Its workers
 * record concurrently: counters are {@link LongAdder}s and durations a {@link ConcurrentHistogram}
 * per trigger, read at scrape time. A trigger appears once it has a reconcile.
 */
public final class ControllerMetrics {

  private static final Trigger[] TRIGGERS = Trigger.values();
  private static final ReconcileResult[] RESULTS = ReconcileResult.values();
  private static final ApiVerb[] VERBS = ApiVerb.values();
  private static final ReconcileEffect[] EFFECTS = ReconcileEffect.values();

  private final String controller;
  /** By trigger then result. */
  private final LongAdder[] reconciles = HandlerMetrics.adders(TRIGGERS.length * RESULTS.length);
  private final ConcurrentHistogram[] durations = new ConcurrentHistogram[TRIGGERS.length];
  /** API requests sent by its reconciles (and handler calls), by trigger then verb. */
  private final LongAdder[] apiRequests = HandlerMetrics.adders(TRIGGERS.length * VERBS.length);
  /** Reconciles by trigger then effect: each reconcile counted in {@link #reconciled} is counted here once too. */
  private final LongAdder[] effects = HandlerMetrics.adders(TRIGGERS.length * EFFECTS.length);

  ControllerMetrics(String controller) {
    this.controller = controller;
    for (int i = 0; i < durations.length; i++) {
      durations[i] = new ConcurrentHistogram(Buckets.CONTROLLER_RUNTIME_RECONCILE);
    }
  }

  public void reconciled(Trigger trigger, ReconcileResult result, long nanos) {
    reconciles[trigger.ordinal() * RESULTS.length + result.ordinal()].increment();
    durations[trigger.ordinal()].record(nanos);
  }

  /** A reconcile with {@code trigger}, counted in {@link #reconciled}, had {@code effect}. */
  public void reconcileEffect(Trigger trigger, ReconcileEffect effect) {
    effects[trigger.ordinal() * EFFECTS.length + effect.ordinal()].increment();
  }

  /** A reconcile (or handler call) with {@code trigger} sent an API request. */
  public void apiRequested(Trigger trigger, ApiVerb verb) {
    apiRequests[trigger.ordinal() * VERBS.length + verb.ordinal()].increment();
  }

  void export(Export out) {
    for (Trigger trigger : TRIGGERS) {
      for (ReconcileEffect effect : EFFECTS) {
        long n = effects[trigger.ordinal() * EFFECTS.length + effect.ordinal()].sum();
        if (n > 0) {
          out.counter(
              "controller_reconcile_effect",
              "Reconciles by the trigger of the item they reconciled and by what their writes to the Kubernetes API changed"
                  + " (changed: a write changed an object, or was not seen to change nothing; writes elsewhere are not seen).",
              Labels.of("controller", controller, "trigger", trigger.label(), "effect", effect.label()),
              n);
        }
      }
    }
    for (Trigger trigger : TRIGGERS) {
      for (ApiVerb verb : VERBS) {
        long n = apiRequests[trigger.ordinal() * VERBS.length + verb.ordinal()].sum();
        if (n > 0) {
          out.counter(
              "controller_reconcile_api_requests",
              "API requests sent while a reconcile (or handler call) with that trigger ran, by verb.",
              Labels.of("controller", controller, "trigger", trigger.label(), "verb", verb.label()),
              n);
        }
      }
    }
    for (Trigger trigger : TRIGGERS) {
      boolean seen = false;
      for (ReconcileResult result : RESULTS) {
        long n = reconciles[trigger.ordinal() * RESULTS.length + result.ordinal()].sum();
        if (n > 0) {
          seen = true;
          out.counter(
              "controller_reconcile",
              "Reconciles by the trigger of the item they reconciled and by result.",
              Labels.of("controller", controller, "trigger", trigger.label(), "result", result.label()),
              n);
        }
      }
      if (seen) {
        out.histogram(
            "controller_reconcile_duration_seconds",
            "Time spent in reconciles, by the trigger of the item they reconciled.",
            Buckets.CONTROLLER_RUNTIME_RECONCILE.dataPoint(
                Labels.of("controller", controller, "trigger", trigger.label()), durations[trigger.ordinal()].read()));
      }
    }
  }
}
