package dev.resyncmeter.collector;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/** The meters of one informer, by the Kubernetes kind it watches. */
public final class InformerMetrics {

  private final Counter resyncs;
  private final Counter relistsExpired;
  private final Counter relistsError;
  private final Counter relistNotificationsLost;

  InformerMetrics(MeterRegistry registry, String kind) {
    resyncs =
        Counter.builder("informer.resyncs")
            .description("Periodic resync ticks that replayed the informer's cache to its handlers.")
            .tag(LabelNames.KIND, kind)
            .register(registry);
    relistsExpired = relists(registry, kind, RelistReason.EXPIRED);
    relistsError = relists(registry, kind, RelistReason.ERROR);
    relistNotificationsLost =
        Counter.builder("informer.relist.notifications.lost")
            .description(
                "Relist notifications (one per listed object) that reached no handler because no handler was due for resync.")
            .tag(LabelNames.KIND, kind)
            .register(registry);
  }

  private static Counter relists(MeterRegistry registry, String kind, RelistReason reason) {
    return Counter.builder("informer.relists")
        .description("Lists made again after the first one, by why the watch ended.")
        .tag(LabelNames.KIND, kind)
        .tag(LabelNames.REASON, reason.label())
        .register(registry);
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
