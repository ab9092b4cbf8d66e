package dev.resyncmeter.bench;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.impl.cache.ProcessorListener;
import io.fabric8.kubernetes.client.informers.impl.cache.SharedProcessor;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * JMH benchmarks of the fabric8 informer path the agent weaves, on the real classes: a listener's
 * delivery of one notification ({@code ProcessorListener.add}) and its handler's call inside it, as
 * fabric8's serial executor makes them.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
public class Fabric8Benchmarks {

  /** A handler that filters everything out: the cost of the call alone. */
  public static final class IdleHandler implements ResourceEventHandler<ConfigMap> {
    long calls;

    @Override
    public void onAdd(ConfigMap object) {
      calls++;
    }

    @Override
    public void onUpdate(ConfigMap oldObject, ConfigMap newObject) {
      calls++;
    }

    @Override
    public void onDelete(ConfigMap object, boolean deletedFinalStateUnknown) {
      calls++;
    }
  }

  IdleHandler handler;
  ProcessorListener<ConfigMap> listener;
  /** Resync notifications: old and new are the same cached instance. */
  ProcessorListener.UpdateNotification<ConfigMap>[] noop;
  /** Watch notifications: a fresh instance with a new resource version. */
  ProcessorListener.UpdateNotification<ConfigMap>[] changed;

  @Setup
  @SuppressWarnings("unchecked")
  public void setUp() {
    handler = new IdleHandler();
    // Runs notifications inline; the listener is made the way an informer makes it.
    listener = new SharedProcessor<ConfigMap>().addProcessorListener(handler, 1_000, List::of);
    noop = new ProcessorListener.UpdateNotification[MicroBenchmarks.BATCH];
    changed = new ProcessorListener.UpdateNotification[MicroBenchmarks.BATCH];
    for (int i = 0; i < MicroBenchmarks.BATCH; i++) {
      ConfigMap cached = configMap(i, "1");
      noop[i] = new ProcessorListener.UpdateNotification<>(cached, cached);
      changed[i] = new ProcessorListener.UpdateNotification<>(cached, configMap(i, "2"));
    }
  }

  private void deliver(ProcessorListener.UpdateNotification<ConfigMap>[] batch) {
    long before = handler.calls;
    for (ProcessorListener.UpdateNotification<ConfigMap> notification : batch) {
      listener.add(notification);
    }
    if (handler.calls - before != batch.length) {
      throw new IllegalStateException("the handler saw " + (handler.calls - before) + " of " + batch.length + " notifications");
    }
  }

  /** A resync notification (same instance), handler drops it. Per op: one delivery and handler call. */
  @Benchmark
  @OperationsPerInvocation(MicroBenchmarks.BATCH)
  public void fabric8HandlerNoopIdle() {
    deliver(noop);
  }

  /** A watch notification (new resource version), handler drops it. Per op: one delivery and handler call. */
  @Benchmark
  @OperationsPerInvocation(MicroBenchmarks.BATCH)
  public void fabric8HandlerChangedIdle() {
    deliver(changed);
  }

  private static ConfigMap configMap(int i, String resourceVersion) {
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withNamespace("bench")
        .withName("cm-" + i)
        .withResourceVersion(resourceVersion)
        .endMetadata()
        .build();
  }
}
