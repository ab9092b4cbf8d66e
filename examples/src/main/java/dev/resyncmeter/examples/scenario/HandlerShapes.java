package dev.resyncmeter.examples.scenario;

import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * Handlers of the application's own, in each shape a compiler makes them, for {@code
 * handler-shapes-scenario}: a javac anonymous class, a javac class whose methods are javac lambdas (the
 * handler interface has three abstract methods: no lambda can be a handler itself), a Kotlin class
 * and a Kotlin object expression (KotlinHandlers.kt). Each tells the scenario's ground truth every
 * call under the label the agent gives its class.
 */
public final class HandlerShapes {

  /** What a handler tells the ground truth: its calls, under its label. */
  public interface Calls {
    void add(String handler);

    void update(String handler, V1ConfigMap oldObject, V1ConfigMap newObject);

    void delete(String handler);
  }

  private HandlerShapes() {}

  static List<ResourceEventHandler<V1ConfigMap>> all(Calls calls) {
    return List.of(Anonymous.of(calls), Lambdas.of(calls), new KotlinHandler(calls), KotlinHandlersKt.objectExpression(calls));
  }

  /** Its anonymous class is labelled after the class it is made in. */
  static final class Anonymous {
    static final String LABEL = "HandlerShapes$Anonymous";

    static ResourceEventHandler<V1ConfigMap> of(Calls calls) {
      return new ResourceEventHandler<>() {
        @Override
        public void onAdd(V1ConfigMap object) {
          calls.add(LABEL);
        }

        @Override
        public void onUpdate(V1ConfigMap oldObject, V1ConfigMap newObject) {
          calls.update(LABEL, oldObject, newObject);
        }

        @Override
        public void onDelete(V1ConfigMap object, boolean deletedFinalStateUnknown) {
          calls.delete(LABEL);
        }
      };
    }
  }

  /** A handler made of three lambdas. */
  static final class Lambdas implements ResourceEventHandler<V1ConfigMap> {
    static final String LABEL = "HandlerShapes$Lambdas";

    private final Consumer<V1ConfigMap> onAdd;
    private final BiConsumer<V1ConfigMap, V1ConfigMap> onUpdate;
    private final Consumer<V1ConfigMap> onDelete;

    private Lambdas(Consumer<V1ConfigMap> onAdd, BiConsumer<V1ConfigMap, V1ConfigMap> onUpdate, Consumer<V1ConfigMap> onDelete) {
      this.onAdd = onAdd;
      this.onUpdate = onUpdate;
      this.onDelete = onDelete;
    }

    static Lambdas of(Calls calls) {
      return new Lambdas(o -> calls.add(LABEL), (o, n) -> calls.update(LABEL, o, n), o -> calls.delete(LABEL));
    }

    @Override
    public void onAdd(V1ConfigMap object) {
      onAdd.accept(object);
    }

    @Override
    public void onUpdate(V1ConfigMap oldObject, V1ConfigMap newObject) {
      onUpdate.accept(oldObject, newObject);
    }

    @Override
    public void onDelete(V1ConfigMap object, boolean deletedFinalStateUnknown) {
      onDelete.accept(object);
    }
  }
}
