package dev.resyncmeter.agent.clientjava.controller;

import io.kubernetes.client.extended.controller.reconciler.Reconciler;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/** The advice woven into client-java-extended's controller classes, for handler labels. */
final class ControllerAdvice {

  private ControllerAdvice() {}

  /** {@code DefaultControllerWatch.getResourceEventHandler()}: the handler it returns adds to its queue. */
  static final class WatchHandler {
    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.Return Object handler, @Advice.FieldValue("workQueue") Object workQueue) {
      ControllerBridge.watchHandlerCreated(handler, workQueue);
    }
  }

  /**
   * {@code DefaultController(String name, Reconciler reconciler, ...)}: the reconciler is timed. The
   * delegating constructors pass it on, already timed, so it is wrapped once. The argument is typed
   * {@code Object} here: ByteBuddy reads this class's method signatures with reflection in the
   * agent's class loader, which cannot see client-java when the host loads it from a nested jar
   * (Spring Boot); {@code Reconciler.class} in the body resolves in the host's loader once inlined.
   */
  static final class TimeReconciler {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(
        @Advice.Argument(0) String name,
        @Advice.Argument(value = 1, readOnly = false, typing = Assigner.Typing.DYNAMIC) Object reconciler)
        throws ReflectiveOperationException {
      reconciler = ControllerBridge.timedReconciler(reconciler, name, Reconciler.class);
    }
  }

  /**
   * {@code Result(boolean requeue)}: made by {@code DefaultController.worker} itself only when the
   * reconciler threw. After an attach that is how a reconcile the agent cannot wrap is seen to fail.
   */
  static final class ResultMade {
    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.Argument(0) boolean requeue) {
      ControllerBridge.resultMade(requeue);
    }
  }

  /** Every {@code DefaultController} constructor: the controller's name and its queue. */
  static final class ControllerConstructor {
    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.FieldValue("name") String name, @Advice.FieldValue("workQueue") Object workQueue) {
      ControllerBridge.controllerBuilt(name, workQueue);
    }
  }
}
