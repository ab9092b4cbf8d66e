package dev.resyncmeter.collector;

import io.prometheus.metrics.model.snapshots.Labels;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * Reconciles of one controller by the trigger of the item they took, and how they ended. Its workers
 * record concurrently, each in a row of its own ({@link ThreadRows}): per trigger, the reconciles by
 * result, their durations' buckets and sum, and their effects; a scrape sums the rows. API requests,
 * counted per request rather than per reconcile, are {@link LongAdder}s. A trigger appears once it
 * has a reconcile.
 */
public final class ControllerMetrics {

  private static final Trigger[] TRIGGERS = Trigger.values();
  private static final ReconcileResult[] RESULTS = ReconcileResult.values();
  private static final ApiVerb[] VERBS = ApiVerb.values();
  private static final ReconcileEffect[] EFFECTS = ReconcileEffect.values();
  private static final Buckets DURATION_BUCKETS = Buckets.CONTROLLER_RUNTIME_RECONCILE;

  // A row's layout, per trigger: reconciles by result, duration buckets then the sum in nanoseconds, effects.
  private static final int RESULTS_AT = 0;
  private static final int DURATION_AT = RESULTS_AT + RESULTS.length;
  private static final int EFFECTS_AT = DURATION_AT + DURATION_BUCKETS.count() + 1;
  private static final int PER_TRIGGER = EFFECTS_AT + EFFECTS.length;

  private final String controller;
  private final Observability observability;
  private final ThreadRows rows = new ThreadRows(TRIGGERS.length * PER_TRIGGER);
  /** API requests sent by its reconciles (and handler calls), by trigger then verb. */
  private final LongAdder[] apiRequests = HandlerMetrics.adders(TRIGGERS.length * VERBS.length);

  ControllerMetrics(String controller, Observability observability) {
    this.controller = controller;
    this.observability = observability;
  }

  /**
   * The trigger of a reconcile of the item {@code held}: {@code unknown} while queue adds are not seen
   * (then no item's add was).
   */
  public Trigger triggerOf(HeldItem held) {
    return observability.queueAddsObservable() ? held.trigger() : Trigger.UNKNOWN;
  }

  /**
   * A reconcile with {@code trigger} ended with {@code result} after {@code nanos}, on the thread whose
   * {@link ThreadContext#lastRow} is {@code row}.
   */
  public void reconciled(LastRow row, Trigger trigger, ReconcileResult result, long nanos) {
    int at = trigger.ordinal() * PER_TRIGGER;
    rows.add(row, at + RESULTS_AT + result.ordinal(), 1);
    rows.add(row, at + DURATION_AT + DURATION_BUCKETS.indexOf(nanos), 1);
    rows.add(row, at + DURATION_AT + DURATION_BUCKETS.count(), nanos);
  }

  /**
   * A reconcile with {@code trigger}, counted in {@link #reconciled}, had {@code effect} as far as its
   * writes were seen: {@code changed} while some writes may go unseen.
   */
  public void reconcileEffect(LastRow row, Trigger trigger, ReconcileEffect effect) {
    ReconcileEffect counted = observability.writesObservable() ? effect : ReconcileEffect.CHANGED;
    rows.add(row, trigger.ordinal() * PER_TRIGGER + EFFECTS_AT + counted.ordinal(), 1);
  }

  /**
   * A reconcile ended with {@code result} after {@code nanos}, having had {@code effect} and sent
   * {@code requestsByVerb} (by {@link ApiVerb}), on work added for {@code echoes}: updates not yet told
   * echoes or not. It counts once they are told: under {@code own_write} if each is an echo, else
   * {@code change}.
   */
  public void reconciledAfterEchoes(List<PendingEcho> echoes, ReconcileResult result, long nanos, ReconcileEffect effect, long[] requestsByVerb) {
    PendingEcho.whenAllTold(
        echoes,
        trigger -> {
          LastRow row = new LastRow(); // the telling thread's own row, found afresh
          reconciled(row, trigger, result, nanos);
          reconcileEffect(row, trigger, effect);
          apiRequested(trigger, requestsByVerb);
        });
  }

  /** Requests by {@link ApiVerb} that a reconcile with {@code trigger} sent, told at once. */
  void apiRequested(Trigger trigger, long[] requestsByVerb) {
    for (ApiVerb verb : VERBS) {
      long n = requestsByVerb[verb.ordinal()];
      if (n > 0) {
        apiRequests[trigger.ordinal() * VERBS.length + verb.ordinal()].add(n);
      }
    }
  }

  /** A reconcile (or handler call) with {@code trigger} sent an API request. */
  public void apiRequested(Trigger trigger, ApiVerb verb) {
    apiRequests[trigger.ordinal() * VERBS.length + verb.ordinal()].increment();
  }

  void export(Export out) {
    long[] totals = rows.sum();
    for (Trigger trigger : TRIGGERS) {
      for (ReconcileEffect effect : EFFECTS) {
        long n = totals[trigger.ordinal() * PER_TRIGGER + EFFECTS_AT + effect.ordinal()];
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
      int at = trigger.ordinal() * PER_TRIGGER;
      boolean seen = false;
      for (ReconcileResult result : RESULTS) {
        long n = totals[at + RESULTS_AT + result.ordinal()];
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
            DURATION_BUCKETS.dataPoint(
                Labels.of("controller", controller, "trigger", trigger.label()),
                Arrays.copyOfRange(totals, at + DURATION_AT, at + EFFECTS_AT)));
      }
    }
  }
}
