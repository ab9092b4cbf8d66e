package io.fabric8.kubernetes.client.informers.impl;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;

/**
 * fabric8's informer, for the bench's fabric8 wave ({@code dev.resyncmeter.bench.Fabric8Wave}): its
 * resync tick replays the cache only when {@code startWave} says yes, as the client-java wave's
 * {@code PacedFifo} does. fabric8 has no skip of its own: a tick that comes while the handler is still
 * working through the last replay, and finds the listener due, queues another N notifications behind
 * it. In fabric8's package because the tick's condition is handed to a package-private method
 * ({@code scheduleResync}); the bench runs on the class path, where that is one runtime package.
 * Everything else, resync-meter's weaving of the informer included, is fabric8's own.
 */
public class PacedSharedIndexInformer<T extends HasMetadata, L extends KubernetesResourceList<T>> extends DefaultSharedIndexInformer<T, L> {

  private final BooleanSupplier startWave;

  public PacedSharedIndexInformer(Class<T> apiType, ListerWatcher<T, L> listerWatcher, long resyncPeriodMillis, Executor executor, BooleanSupplier startWave) {
    super(apiType, listerWatcher, resyncPeriodMillis, executor);
    this.startWave = startWave;
  }

  /**
   * fabric8's tick first asks its listeners whether one is due ({@code SharedProcessor.shouldResync},
   * which also sets each due listener's next resync), then replays the cache ({@code ProcessorStore.resync}).
   * The wave is asked only when a listener is due, so a skipped tick is one that would have replayed.
   */
  @Override
  synchronized void scheduleResync(BooleanSupplier resyncDue) {
    super.scheduleResync(() -> resyncDue.getAsBoolean() && startWave.getAsBoolean());
  }
}
