package dev.resyncmeter.examples.scenario;

import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A handler of the application's own that counts every call, then throws. client-java's listener
 * catches and logs the exception; the agent must neither hide it nor change it, and still count
 * the call. It never enqueues, so its no-op updates are dropped.
 */
final class FailingHandler implements ResourceEventHandler<V1ConfigMap> {

  static final String LABEL = "FailingHandler";

  private final GroundTruth truth;
  final AtomicLong adds = new AtomicLong();
  final AtomicLong updates = new AtomicLong();
  final AtomicLong deletes = new AtomicLong();

  FailingHandler(GroundTruth truth) {
    this.truth = truth;
  }

  @Override
  public void onAdd(V1ConfigMap object) {
    truth.handlerCall(LABEL, "add");
    adds.incrementAndGet();
    throw new IllegalArgumentException("the scenario's handler fails on purpose in onAdd");
  }

  @Override
  public void onUpdate(V1ConfigMap oldObject, V1ConfigMap newObject) {
    truth.handlerUpdate(LABEL, oldObject, newObject, "dropped");
    updates.incrementAndGet();
    throw new IllegalArgumentException("the scenario's handler fails on purpose in onUpdate");
  }

  @Override
  public void onDelete(V1ConfigMap object, boolean deletedFinalStateUnknown) {
    truth.handlerCall(LABEL, "delete");
    deletes.incrementAndGet();
    throw new IllegalArgumentException("the scenario's handler fails on purpose in onDelete");
  }
}
