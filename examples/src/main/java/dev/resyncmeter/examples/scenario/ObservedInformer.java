package dev.resyncmeter.examples.scenario;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.ListerWatcher;
import io.kubernetes.client.informer.cache.Cache;
import io.kubernetes.client.informer.cache.DeltaFIFO;
import io.kubernetes.client.informer.impl.DefaultSharedIndexInformer;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.commons.lang3.tuple.MutablePair;

/**
 * The real client-java informer, watched from inside by the application: it counts the resync ticks
 * its queue replays, the lists it makes, and the relist notifications it hands to its processor.
 * These are the scenario's ground truth for the informer-level counts.
 */
final class ObservedInformer extends DefaultSharedIndexInformer<V1ConfigMap, V1ConfigMapList> {

  private final CountingDeltaFIFO fifo;
  private final Cache<V1ConfigMap> cache;
  private final AtomicLong relistNotifications = new AtomicLong();

  static ObservedInformer create(ListerWatcher<V1ConfigMap, V1ConfigMapList> listerWatcher, long resyncPeriodMillis) {
    Cache<V1ConfigMap> cache = new Cache<>();
    @SuppressWarnings("unchecked")
    CountingDeltaFIFO fifo = new CountingDeltaFIFO(cache);
    return new ObservedInformer(listerWatcher, resyncPeriodMillis, fifo, cache);
  }

  private ObservedInformer(
      ListerWatcher<V1ConfigMap, V1ConfigMapList> listerWatcher, long resyncPeriodMillis, CountingDeltaFIFO fifo, Cache<V1ConfigMap> cache) {
    super(V1ConfigMap.class, listerWatcher, resyncPeriodMillis, fifo, cache);
    this.fifo = fifo;
    this.cache = cache;
  }

  /** Counts, before the informer acts on them, the sync deltas a relist turns into notifications. */
  @Override
  public void handleDeltas(Deque<MutablePair<DeltaFIFO.DeltaType, KubernetesObject>> deltas) {
    if (fifo.lists.get() > 1) {
      for (MutablePair<DeltaFIFO.DeltaType, KubernetesObject> delta : deltas) {
        if (delta.getLeft() == DeltaFIFO.DeltaType.Sync) {
          Object cached = cache.get((V1ConfigMap) delta.getRight());
          // A periodic resync replays the cached instance itself; a relist brings a fresh copy.
          if (cached != delta.getRight()) {
            relistNotifications.incrementAndGet();
          }
        }
      }
    }
    super.handleDeltas(deltas);
  }

  /**
   * Replays the cache now, as the resync timer would. With a resync period of 0 the timer never runs
   * and every handler stays in the processor's syncing list, so each replay reaches every handler.
   */
  void replayCache() {
    fifo.resync();
  }

  long resyncTicks() {
    return fifo.resyncs.get();
  }

  long lists() {
    return fifo.lists.get();
  }

  long relistNotifications() {
    return relistNotifications.get();
  }

  private static final class CountingDeltaFIFO extends DeltaFIFO {
    final AtomicLong resyncs = new AtomicLong();
    final AtomicLong lists = new AtomicLong();

    @SuppressWarnings({"unchecked", "rawtypes"})
    CountingDeltaFIFO(Cache cache) {
      super(cache.getKeyFunc(), cache);
    }

    @Override
    public void resync() {
      resyncs.incrementAndGet();
      super.resync();
    }

    @Override
    public void replace(List<KubernetesObject> list, String resourceVersion) {
      lists.incrementAndGet();
      super.replace(list, resourceVersion);
    }
  }
}
