package dev.resyncmeter.collector;

import java.util.concurrent.atomic.LongAdder;

/** The meters of one informer, by the Kubernetes kind it watches. */
public final class InformerMetrics {

  private final LongAdder resyncs = new LongAdder();
  private final LongAdder relistsExpired = new LongAdder();
  private final LongAdder relistsError = new LongAdder();
  private final LongAdder relistNotificationsLost = new LongAdder();

  InformerMetrics(OnDemandRegistry registry, String kind) {
    registry.register(
        DeferredMeter.counter(
            "informer.resyncs", "Periodic resync ticks that replayed the informer's cache to its handlers.", resyncs, LabelNames.KIND, kind));
    registry.register(relists(kind, RelistReason.EXPIRED, relistsExpired));
    registry.register(relists(kind, RelistReason.ERROR, relistsError));
    registry.register(
        DeferredMeter.counter(
            "informer.relist.notifications.lost",
            "Relist notifications (one per listed object) that reached no handler because no handler was due for resync.",
            relistNotificationsLost,
            LabelNames.KIND,
            kind));
  }

  private static DeferredMeter relists(String kind, RelistReason reason, LongAdder count) {
    return DeferredMeter.counter(
        "informer.relists", "Lists made again after the first one, by why the watch ended.", count, LabelNames.KIND, kind, LabelNames.REASON, reason.label());
  }

  public void resync() {
    resyncs.increment();
  }

  public void relist(RelistReason reason) {
    (reason == RelistReason.EXPIRED ? relistsExpired : relistsError).increment();
  }

  public void relistNotificationLost() {
    relistNotificationsLost.increment();
  }
}
