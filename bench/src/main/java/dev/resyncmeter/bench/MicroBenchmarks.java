package dev.resyncmeter.bench;

import io.kubernetes.client.extended.controller.DefaultController;
import io.kubernetes.client.extended.controller.reconciler.Reconciler;
import io.kubernetes.client.extended.controller.reconciler.Request;
import io.kubernetes.client.extended.controller.reconciler.Result;
import io.kubernetes.client.extended.workqueue.DefaultRateLimitingQueue;
import io.kubernetes.client.extended.workqueue.DefaultWorkQueue;
import io.kubernetes.client.extended.workqueue.WorkQueue;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.cache.ProcessorListener;
import io.kubernetes.client.informer.cache.SharedProcessor;
import io.kubernetes.client.informer.impl.DefaultSharedIndexInformer;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapList;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.lang.reflect.Field;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * JMH benchmarks of the client-java paths the agent weaves, on the real classes. MicroSection runs each
 * once without and once with the agent; the difference is the agent's cost.
 *
 * <p>Handler calls go through a real {@code ProcessorListener} of a real (not started) informer, so
 * the agent knows its kind and handler as in production: a batch of {@value #BATCH} notifications is
 * distributed through the informer's {@code SharedProcessor}, then the listener's own {@code run()}
 * loop delivers them on the benchmark thread. The batch's last handler call interrupts the thread, so
 * the loop's {@code queue.take()} throws and {@code run()} returns, as when an informer stops.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class MicroBenchmarks {

  static final int BATCH = 1024;
  /** Set in the with-agent forks: a setup that does not see the agent's work fails instead of measuring nothing. */
  static final String EXPECT_AGENT = "resyncmeter.bench.expectAgent";

  // ---- handler calls ---------------------------------------------------------------------------

  /** Counts a batch down and ends the listener's loop at its last call. */
  abstract static class BatchHandler implements ResourceEventHandler<V1ConfigMap> {
    int remaining;

    final void called() {
      if (--remaining == 0) {
        Thread.currentThread().interrupt();
      }
    }

    @Override
    public void onAdd(V1ConfigMap object) {
      called();
    }

    @Override
    public void onDelete(V1ConfigMap object, boolean deletedFinalStateUnknown) {
      called();
    }
  }

  /** A handler that filters everything out: the cost of the call alone. */
  public static final class IdleHandler extends BatchHandler {
    @Override
    public void onUpdate(V1ConfigMap oldObject, V1ConfigMap newObject) {
      called();
    }
  }

  /** A controller's handler: every update enqueues the object's key. */
  public static final class EnqueueHandler extends BatchHandler {
    final WorkQueue<Request> queue;

    EnqueueHandler(WorkQueue<Request> queue) {
      this.queue = queue;
    }

    @Override
    public void onUpdate(V1ConfigMap oldObject, V1ConfigMap newObject) {
      queue.add(new Request(newObject.getMetadata().getNamespace(), newObject.getMetadata().getName()));
      called();
    }
  }

  /** An informer's listener with its handler, and batches of no-op and changed update notifications. */
  abstract static class ListenerState {
    SharedProcessor<V1ConfigMap> processor;
    ProcessorListener<V1ConfigMap> listener;
    BatchHandler handler;
    /** Resync notifications: old and new are the same cached instance. */
    ProcessorListener.UpdateNotification<V1ConfigMap>[] noop;
    /** Watch notifications: a fresh instance with a new resource version. */
    ProcessorListener.UpdateNotification<V1ConfigMap>[] changed;

    @SuppressWarnings("unchecked")
    void setUp(BatchHandler handler) throws ReflectiveOperationException {
      this.handler = handler;
      DefaultSharedIndexInformer<V1ConfigMap, V1ConfigMapList> informer =
          new DefaultSharedIndexInformer<>(V1ConfigMap.class, new ResyncPipeline.Lister(List.of()), 60_000);
      informer.addEventHandler(handler);
      processor = (SharedProcessor<V1ConfigMap>) field(informer, "processor");
      listener = ((List<ProcessorListener<V1ConfigMap>>) field(processor, "listeners")).get(0);
      noop = new ProcessorListener.UpdateNotification[BATCH];
      changed = new ProcessorListener.UpdateNotification[BATCH];
      for (int i = 0; i < BATCH; i++) {
        V1ConfigMap cached = configMap(i, "1");
        noop[i] = new ProcessorListener.UpdateNotification<>(cached, cached);
        changed[i] = new ProcessorListener.UpdateNotification<>(cached, configMap(i, "2"));
      }
    }

    /** Distributes one batch as the informer does, then runs the listener until the batch is handled. */
    void handle(ProcessorListener.UpdateNotification<V1ConfigMap>[] batch, boolean isSync) {
      handler.remaining = BATCH;
      for (ProcessorListener.UpdateNotification<V1ConfigMap> notification : batch) {
        processor.distribute(notification, isSync);
      }
      listener.run();
      if (handler.remaining != 0) {
        throw new IllegalStateException("the listener stopped with " + handler.remaining + " notifications unhandled");
      }
    }
  }

  @State(Scope.Thread)
  public static class IdleListener extends ListenerState {
    @Setup
    public void setUp() throws ReflectiveOperationException {
      setUp(new IdleHandler());
    }
  }

  @State(Scope.Thread)
  public static class EnqueueListener extends ListenerState {
    ExecutorService delaying;
    DefaultRateLimitingQueue<Request> queue;

    @Setup
    public void setUp() throws ReflectiveOperationException {
      delaying = Executors.newSingleThreadExecutor(ResyncPipeline.daemon("bench-delaying"));
      queue = controllerQueue(delaying);
      setUp(new EnqueueHandler(queue));
    }

    /** A worker's part: takes every key the batch enqueued and marks it done. */
    void drain() throws InterruptedException {
      for (int i = 0; i < BATCH; i++) {
        queue.done(queue.get());
      }
    }

    @TearDown
    public void tearDown() {
      queue.shutDown();
      delaying.shutdownNow();
    }
  }

  /** A resync notification (same instance), handler drops it. Per op: one handler call. */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void handlerNoopIdle(IdleListener state) {
    state.handle(state.noop, true);
  }

  /** A watch notification (new resource version), handler drops it. Per op: one handler call. */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void handlerChangedIdle(IdleListener state) {
    state.handle(state.changed, false);
  }

  /** A resync notification, handler enqueues the key, a worker takes it. Per op: one handler call, add, get, done. */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void handlerNoopEnqueue(EnqueueListener state) throws InterruptedException {
    state.handle(state.noop, true);
    state.drain();
  }

  /** A watch notification, handler enqueues the key, a worker takes it. Per op: one handler call, add, get, done. */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void handlerChangedEnqueue(EnqueueListener state) throws InterruptedException {
    state.handle(state.changed, false);
    state.drain();
  }

  // ---- workqueues ------------------------------------------------------------------------------

  /** Keys cycling over 1024 distinct requests, so the queue's sets see many keys. */
  abstract static class QueueState {
    final Request[] keys = new Request[1024];
    int next;

    QueueState() {
      for (int i = 0; i < keys.length; i++) {
        keys[i] = new Request("default", "cm-" + i);
      }
    }

    abstract WorkQueue<Request> queue();

    /** One add, get, done of the next key, as a handler and a worker make them. */
    Request cycle() throws InterruptedException {
      WorkQueue<Request> queue = queue();
      queue.add(keys[next++ & (keys.length - 1)]);
      Request taken = queue.get();
      queue.done(taken);
      return taken;
    }
  }

  @State(Scope.Thread)
  public static class PlainQueue extends QueueState {
    final DefaultWorkQueue<Request> queue = new DefaultWorkQueue<>();

    @Override
    WorkQueue<Request> queue() {
      return queue;
    }
  }

  @State(Scope.Thread)
  public static class RateLimitedQueue extends QueueState {
    ExecutorService delaying;
    DefaultRateLimitingQueue<Request> queue;

    @Setup
    public void setUp() {
      delaying = Executors.newSingleThreadExecutor(ResyncPipeline.daemon("bench-delaying"));
      queue = controllerQueue(delaying);
    }

    @Override
    WorkQueue<Request> queue() {
      return queue;
    }

    @TearDown
    public void tearDown() {
      queue.shutDown();
      delaying.shutdownNow();
    }
  }

  /** add, get, done on a {@code DefaultWorkQueue}. Per op: one queue operation. */
  @Benchmark
  @OperationsPerInvocation(3)
  public Request workQueueCycle(PlainQueue state) throws InterruptedException {
    return state.cycle();
  }

  /** add, get, done on a controller's {@code DefaultRateLimitingQueue}. Per op: one queue operation. */
  @Benchmark
  @OperationsPerInvocation(3)
  public Request rateLimitingQueueCycle(RateLimitedQueue state) throws InterruptedException {
    return state.cycle();
  }

  // ---- reconcile -------------------------------------------------------------------------------

  /** Counts itself; returns one shared result, so the baseline allocates nothing. */
  public static final class CountingReconciler implements Reconciler {
    private static final Result DONE = new Result(false);
    long count;

    @Override
    public Result reconcile(Request request) {
      count++;
      return DONE;
    }
  }

  /** One reconcile through the controller's (possibly wrapped) reconciler, with no item taken from its queue. */
  @Benchmark
  public Result reconcile(ControllerWorker state) {
    return state.reconciler.reconcile(state.keys[0]);
  }

  /**
   * The queue and the reconciler a real {@code DefaultController} holds (with the agent, the
   * reconciler is its timing stand-in), driven as one of its workers does.
   */
  @State(Scope.Thread)
  public static class ControllerWorker extends QueueState {
    ExecutorService delaying;
    DefaultRateLimitingQueue<Request> queue;
    Reconciler reconciler;

    @Setup
    public void setUp() throws ReflectiveOperationException {
      delaying = Executors.newSingleThreadExecutor(ResyncPipeline.daemon("bench-delaying"));
      queue = new DefaultRateLimitingQueue<>(delaying);
      DefaultController controller = new DefaultController("bench-controller", new CountingReconciler(), queue);
      reconciler = (Reconciler) field(controller, "reconciler");
      if (Boolean.getBoolean(EXPECT_AGENT) && reconciler instanceof CountingReconciler) {
        throw new IllegalStateException("the agent is attached but did not put its stand-in in front of the reconciler");
      }
    }

    @Override
    WorkQueue<Request> queue() {
      return queue;
    }

    /** The handler's add, then the worker's get, reconcile and done, as DefaultController's worker makes them. */
    Result item() throws InterruptedException {
      queue.add(keys[next++ & (keys.length - 1)]);
      Request taken = queue.get();
      try {
        return reconciler.reconcile(taken);
      } finally {
        queue.done(taken);
      }
    }

    @TearDown
    public void tearDown() {
      queue.shutDown();
      delaying.shutdownNow();
    }
  }

  /** One item through a controller: add, get, reconcile, done. Per op: one item. */
  @Benchmark
  public Result workerItem(ControllerWorker state) throws InterruptedException {
    return state.item();
  }

  /** The clock alone. */
  @Benchmark
  public long clockRead() {
    return System.nanoTime();
  }

  // ---- helpers ---------------------------------------------------------------------------------

  /** A rate-limiting queue owned by a {@code DefaultController}, as a controller's handler and workers use it. */
  static DefaultRateLimitingQueue<Request> controllerQueue(ExecutorService delaying) {
    DefaultRateLimitingQueue<Request> queue = new DefaultRateLimitingQueue<>(delaying);
    new DefaultController("bench-controller", new CountingReconciler(), queue);
    return queue;
  }

  static V1ConfigMap configMap(int i, String resourceVersion) {
    return new V1ConfigMap().metadata(new V1ObjectMeta().namespace("default").name("cm-" + i).resourceVersion(resourceVersion));
  }

  static Object field(Object owner, String name) throws ReflectiveOperationException {
    for (Class<?> type = owner.getClass(); type != null; type = type.getSuperclass()) {
      try {
        Field field = type.getDeclaredField(name);
        field.setAccessible(true);
        return field.get(owner);
      } catch (NoSuchFieldException e) {
        // look in the super class
      }
    }
    throw new NoSuchFieldException(owner.getClass().getName() + "." + name);
  }
}
