package dev.resyncmeter.examples.fabric8;

import static dev.resyncmeter.examples.truth.Truth.series;

import dev.resyncmeter.examples.truth.Truth;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A plain fabric8 controller: one informer with a resync period and two handlers of its own, each
 * handing the keys it wants reconciled to the controller's own queue and worker (fabric8 has no
 * workqueue). {@link VersionCheckingHandler} skips updates whose resource version did not change;
 * {@link EveryUpdateHandler} queues every update, resyncs included. Each handler also counts its calls
 * as the application sees them, under the series the agent must export for it.
 */
public final class Fabric8Sample<T extends HasMetadata> implements AutoCloseable {

  private final SharedIndexInformer<T> informer;
  private final BlockingQueue<String> queue = new LinkedBlockingQueue<>();
  private final Thread worker;
  private final ResyncWaves waves = new ResyncWaves();
  /** Reconciles the worker ran, by the handler that queued them. */
  final AtomicLong reconcilesOfEveryUpdate = new AtomicLong();
  final AtomicLong reconcilesOfVersionChecking = new AtomicLong();

  public Fabric8Sample(KubernetesClient client, Class<T> type, String namespace, long resyncMillis, Truth truth) {
    String kind = type.getSimpleName();
    informer = client.resources(type).inNamespace(namespace).runnableInformer(resyncMillis);
    informer.addEventHandler(new VersionCheckingHandler<>(kind, queue, truth, waves));
    informer.addEventHandler(new EveryUpdateHandler<>(kind, queue, truth, waves));
    worker = new Thread(this::work, "fabric8-sample-worker");
    worker.setDaemon(true);
  }

  /** Starts the worker, then the informer, and waits until its first list is in the cache. */
  public Fabric8Sample<T> start() {
    worker.start();
    informer.run();
    return this;
  }

  /** Reconciles the worker ran. */
  public long reconciles() {
    return reconcilesOfEveryUpdate.get() + reconcilesOfVersionChecking.get();
  }

  /** Resync replays the handlers have seen so far. */
  public long resyncWaves() {
    return waves.waves();
  }

  /** Nanoseconds since the handlers' last resync call. */
  long sinceLastResyncCall() {
    return waves.sinceLastCall();
  }

  public SharedIndexInformer<T> informer() {
    return informer;
  }

  /** The reconcile: reads the object from the cache and takes a little time, as an API round trip would. */
  private void work() {
    try {
      while (!Thread.currentThread().isInterrupted()) {
        String item = queue.take();
        Thread.sleep(2);
        (item.startsWith(EveryUpdateHandler.class.getSimpleName()) ? reconcilesOfEveryUpdate : reconcilesOfVersionChecking).incrementAndGet();
      }
    } catch (InterruptedException stopped) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() throws InterruptedException {
    informer.stop();
    worker.interrupt();
    worker.join(TimeUnit.SECONDS.toMillis(5));
  }

  /** A handler that counts its calls as the application sees them; null truth counts nothing. */
  abstract static class CountingHandler<T extends HasMetadata> implements ResourceEventHandler<T> {
    final String kind;
    final BlockingQueue<String> queue;
    final Truth truth;
    final String label;
    final ResyncWaves waves;

    CountingHandler(String kind, BlockingQueue<String> queue, Truth truth, ResyncWaves waves) {
      this.kind = kind;
      this.queue = queue;
      this.truth = truth;
      this.waves = waves;
      // the agent's handler label: the class's binary name without its package
      this.label = getClass().getName().substring(getClass().getPackageName().length() + 1);
    }

    void enqueue(T object) {
      queue.add(getClass().getSimpleName() + "/" + object.getMetadata().getName());
    }

    void called(String type) {
      if (truth != null) {
        truth.increment(series("informer_notifications_total", "handler", label, "kind", kind, "type", type));
      }
    }

    /** Counts an update; true when its resource version is unchanged. */
    boolean updated(T oldObject, T newObject) {
      boolean unchanged = Objects.equals(oldObject.getMetadata().getResourceVersion(), newObject.getMetadata().getResourceVersion());
      if (truth != null) {
        // fabric8 passes the same cached instance as old and new only on a periodic resync
        String cause = oldObject == newObject ? "resync" : "watch";
        called("update");
        truth.increment(series("informer_updates_total", "cause", cause, "handler", label, "kind", kind, "resource_version", unchanged ? "unchanged" : "changed"));
        if (unchanged) {
          truth.increment(series("informer_noop_updates_total", "cause", cause, "handler", label, "kind", kind, "outcome", "unknown"));
        }
      }
      if (oldObject == newObject) {
        resyncCall();
      }
      return unchanged;
    }

    void resyncCall() {
      waves.call();
    }

    @Override
    public void onAdd(T object) {
      called("add");
      enqueue(object);
    }

    @Override
    public void onDelete(T object, boolean deletedFinalStateUnknown) {
      called("delete");
      enqueue(object);
    }
  }

  /** Compares resource versions first, as the Go deployment controller's updateReplicaSet does. */
  public static final class VersionCheckingHandler<T extends HasMetadata> extends CountingHandler<T> {
    VersionCheckingHandler(String kind, BlockingQueue<String> queue, Truth truth, ResyncWaves waves) {
      super(kind, queue, truth, waves);
    }

    @Override
    public void onUpdate(T oldObject, T newObject) {
      if (!updated(oldObject, newObject)) {
        enqueue(newObject);
      }
    }
  }

  /** Queues every update, resyncs included, as most handlers do. */
  public static final class EveryUpdateHandler<T extends HasMetadata> extends CountingHandler<T> {
    EveryUpdateHandler(String kind, BlockingQueue<String> queue, Truth truth, ResyncWaves waves) {
      super(kind, queue, truth, waves);
    }

    @Override
    public void onUpdate(T oldObject, T newObject) {
      updated(oldObject, newObject);
      enqueue(newObject);
    }
  }

  /**
   * Tells resync replays apart as the handlers see them: fabric8 replays the whole cache in one burst
   * on its serial executor, and the next one comes a resync period (at least a second) later.
   */
  static final class ResyncWaves {
    private static final long GAP_NANOS = TimeUnit.MILLISECONDS.toNanos(300);
    private long waves;
    private long lastCall;

    synchronized void call() {
      long now = System.nanoTime();
      if (waves == 0 || now - lastCall > GAP_NANOS) {
        waves++;
      }
      lastCall = now;
    }

    synchronized long waves() {
      return waves;
    }

    /** Nanoseconds since the last resync call. */
    synchronized long sinceLastCall() {
      return System.nanoTime() - lastCall;
    }
  }
}
