package dev.resyncmeter.agent.clientjava.controller;

import net.bytebuddy.asm.Advice;

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

  /** Every {@code DefaultController} constructor: the controller's name and its queue. */
  static final class ControllerConstructor {
    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.FieldValue("name") String name, @Advice.FieldValue("workQueue") Object workQueue) {
      ControllerBridge.controllerBuilt(name, workQueue);
    }
  }
}
