package dev.resyncmeter.agent.clientjava.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resyncmeter.collector.ResyncMetrics;
import io.kubernetes.client.extended.controller.reconciler.Reconciler;
import io.kubernetes.client.extended.controller.reconciler.Request;
import io.kubernetes.client.extended.controller.reconciler.Result;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** The stand-in that times a controller's reconciler is invisible to the controller, and counts each reconcile once. */
class TimedReconcilerTest {

  private final ResyncMetrics metrics = new ResyncMetrics();

  private Object timed(Object reconciler, Class<?> reconcilerInterface) throws ReflectiveOperationException {
    return TimedReconciler.wrap(reconciler, metrics.controller("c"), reconcilerInterface);
  }

  /** The reconcile counts, without their trigger: no item was taken from a queue here, and what that says depends on the parts on. */
  private String reconcileCounts() {
    return metrics.scrape(null).body().lines()
        .filter(line -> line.startsWith("controller_reconcile_total{"))
        .map(line -> line.replaceAll(",trigger=\"[a-z_]+\"", ""))
        .toList()
        .toString();
  }

  @Test
  void clientJavasReconcilerGetsTheCompiledStandInDefinedBesideTheInterface() throws Exception {
    assertThat(TimedReconciler.declaresOnlyReconcile(Reconciler.class)).isTrue();
    Reconciler reconciler = request -> new Result(request.getName().equals("again"));
    Object timed = timed(reconciler, Reconciler.class);

    String standIn = TimedReconciler.class.getPackageName() + ".TimedReconcilerStandIn";
    assertThat(timed.getClass().getName()).isEqualTo(standIn);
    assertThat(timed.getClass().getClassLoader().getParent()).isSameAs(Reconciler.class.getClassLoader());
    assertThatThrownBy(() -> Class.forName(standIn, false, TimedReconciler.class.getClassLoader()))
        .as("not a class of the agent's own loader: its class file is a resource")
        .isInstanceOf(ClassNotFoundException.class);
    assertThat(((Reconciler) timed).reconcile(new Request("ns", "once")).isRequeue()).isFalse();
    assertThat(((Reconciler) timed).reconcile(new Request("ns", "again")).isRequeue()).isTrue();
    assertThat(timed(timed, Reconciler.class)).as("timed once").isSameAs(timed);
    assertThat(reconcileCounts())
        .isEqualTo(
            "[controller_reconcile_total{controller=\"c\",result=\"requeue\"} 1.0,"
                + " controller_reconcile_total{controller=\"c\",result=\"success\"} 1.0]");
  }

  @Test
  void theReconcilersExceptionsPassThroughUnwrappedAndCountAsErrors() throws Exception {
    Reconciler checked = request -> { throw sneaky(new IOException("checked, undeclared")); };
    Reconciler unchecked = request -> { throw new IllegalStateException("unchecked"); };

    assertThatThrownBy(() -> ((Reconciler) timed(checked, Reconciler.class)).reconcile(new Request("ns", "a")))
        .isExactlyInstanceOf(IOException.class)
        .hasMessage("checked, undeclared");
    assertThatThrownBy(() -> ((Reconciler) timed(unchecked, Reconciler.class)).reconcile(new Request("ns", "a")))
        .isExactlyInstanceOf(IllegalStateException.class);
    assertThat(reconcileCounts()).isEqualTo("[controller_reconcile_total{controller=\"c\",result=\"error\"} 2.0]");
  }

  @Test
  void equalsHashCodeAndToStringAreTheReconcilers() throws Exception {
    Reconciler reconciler = new Reconciler() {
      @Override
      public Result reconcile(Request request) {
        return new Result(false);
      }

      @Override
      public String toString() {
        return "the host's reconciler";
      }
    };
    Object timed = timed(reconciler, Reconciler.class);
    assertThat(timed.toString()).isEqualTo("the host's reconciler");
    assertThat(timed.hashCode()).isEqualTo(reconciler.hashCode());
    assertThat(timed.equals(reconciler)).isTrue();
  }

  /** A reconciler interface that declares more than client-java's does today. */
  public interface WiderReconciler {
    Result reconcile(Request request);

    String describe();
  }

  @Test
  void anInterfaceOfAnotherShapeGetsAGeneratedStandInThatForwardsEveryMethod() throws Exception {
    WiderReconciler reconciler = new WiderReconciler() {
      @Override
      public Result reconcile(Request request) {
        return new Result(true);
      }

      @Override
      public String describe() {
        return "wider";
      }
    };
    assertThat(TimedReconciler.declaresOnlyReconcile(WiderReconciler.class)).isFalse();
    WiderReconciler timed = (WiderReconciler) timed(reconciler, WiderReconciler.class);

    assertThat(timed.getClass().getName()).endsWith("$TimedByResyncMeter");
    assertThat(timed.describe()).isEqualTo("wider");
    assertThat(timed.reconcile(new Request("ns", "a")).isRequeue()).isTrue();
    assertThat(reconcileCounts()).isEqualTo("[controller_reconcile_total{controller=\"c\",result=\"requeue\"} 1.0]");
  }

  @SuppressWarnings("unchecked")
  private static <T extends Throwable> RuntimeException sneaky(Throwable checked) throws T {
    throw (T) checked;
  }
}
