package dev.resyncmeter.agent.fabric8.request;

import net.bytebuddy.asm.Advice;

/**
 * The advice woven into fabric8's {@code OperationSupport}, where each write the client makes (JOSDK's
 * included) is sent and its answer returned as an object on the calling thread: it hands the object
 * the write starts from and the object (or failure) it got back to {@link Fabric8RequestBridge}.
 * Signatures and bodies name only the JDK's types.
 */
final class Fabric8WriteAdvice {

  private Fabric8WriteAdvice() {}

  /** {@code handleUpdate(T updated, Class)}: a PUT of {@code updated}, which carries the version it replaces. */
  static final class Update {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static Object enter(@Advice.This Object operation, @Advice.Argument(0) Object updated) throws ReflectiveOperationException {
      return Fabric8RequestBridge.updateSent(operation, updated);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter Object write, @Advice.Return Object answer, @Advice.Thrown Throwable thrown) throws ReflectiveOperationException {
      Fabric8RequestBridge.writeAnswered(write, answer, thrown);
    }
  }

  /**
   * {@code handlePatch(PatchContext, T current, T updated, Class)}: the object the patch starts from,
   * read before fabric8 clears its version to compute a JSON patch against it.
   */
  static final class PatchOfObjects {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.Argument(1) Object current, @Advice.Argument(2) Object updated) throws ReflectiveOperationException {
      Fabric8RequestBridge.patchStartsFrom(current != null ? current : updated);
    }
  }

  /** {@code handlePatch(PatchContext, T current, String patch, Class)}: one PATCH request (a server-side apply too). */
  static final class PatchText {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static Object enter(@Advice.This Object operation, @Advice.Argument(1) Object current) throws ReflectiveOperationException {
      return Fabric8RequestBridge.patchSent(operation, current);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter Object write, @Advice.Return Object answer, @Advice.Thrown Throwable thrown) throws ReflectiveOperationException {
      Fabric8RequestBridge.writeAnswered(write, answer, thrown);
    }
  }

  /** {@code handleCreate}: a write that changes something unless it is refused; its answer is the object made. */
  static final class Create {
    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Return Object answer, @Advice.Thrown Throwable thrown) throws ReflectiveOperationException {
      Fabric8RequestBridge.writeAnswered(null, answer, thrown);
    }
  }

  /** {@code handleDelete}: a write that changes something unless it is refused. */
  static final class Delete {
    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Thrown Throwable thrown) throws ReflectiveOperationException {
      if (thrown != null) {
        Fabric8RequestBridge.writeAnswered(null, null, thrown);
      }
    }
  }
}
