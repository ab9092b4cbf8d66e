package dev.resyncmeter.agent.clientjava.informer;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import net.bytebuddy.asm.AsmVisitorWrapper;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.implementation.Implementation;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import net.bytebuddy.pool.TypePool;

/**
 * The handler's call sites in {@code ProcessorListener.run()}: each {@code handler.onUpdate},
 * {@code onAdd} and {@code onDelete} there is bracketed by calls to {@link InformerBridge}, so that
 * handler calls are measured without weaving the handler classes (which would load ByteBuddy at the
 * start of a host whose handlers are its own). The loop has no method per call to advise.
 *
 * <p>Before {@code onUpdate(old, new)}: {@code DUP2} then {@code updateAtCallSite(old, new)}, which
 * reads what the update advice reads. After any of the three: {@code callSiteEnded()}. A handler that
 * throws skips that: {@code run()} catches and logs it, and takes the next notification, so {@code
 * callSiteEnded()} also runs before each {@code queue.take()}, closing the call the throw left open.
 * Straight-line code only: no branch and no local is added, so the frames stay as they are.
 */
final class HandlerCallSites {

  private static final String HANDLER = "io/kubernetes/client/informer/ResourceEventHandler";
  private static final String BRIDGE = "dev/resyncmeter/agent/clientjava/informer/InformerBridge";

  /** The rewrite of {@code run()}. */
  static final AsmVisitorWrapper RUN =
      new AsmVisitorWrapper.ForDeclaredMethods().method(named("run").and(takesArguments(0)), HandlerCallSites::wrap);

  private HandlerCallSites() {}

  private static MethodVisitor wrap(
      TypeDescription type, MethodDescription method, MethodVisitor visitor, Implementation.Context context, TypePool pool, int writerFlags, int readerFlags) {
    return new MethodVisitor(Opcodes.ASM9, visitor) {
      @Override
      public void visitMethodInsn(int opcode, String owner, String name, String descriptor, boolean isInterface) {
        boolean handlerCall = opcode == Opcodes.INVOKEINTERFACE && owner.equals(HANDLER);
        if (handlerCall && name.equals("onUpdate")) {
          super.visitInsn(Opcodes.DUP2);
          bridge("updateAtCallSite", "(Ljava/lang/Object;Ljava/lang/Object;)V");
        } else if (handlerCall && (name.equals("onAdd") || name.equals("onDelete"))) {
          bridge(name.equals("onAdd") ? "addAtCallSite" : "deleteAtCallSite", "()V");
        } else if (opcode == Opcodes.INVOKEINTERFACE && name.equals("take") && descriptor.equals("()Ljava/lang/Object;")) {
          bridge("callSiteEnded", "()V");
        }
        super.visitMethodInsn(opcode, owner, name, descriptor, isInterface);
        if (handlerCall) {
          bridge("callSiteEnded", "()V");
        }
      }

      private void bridge(String name, String descriptor) {
        super.visitMethodInsn(Opcodes.INVOKESTATIC, BRIDGE, name, descriptor, false);
      }

      @Override
      public void visitMaxs(int maxStack, int maxLocals) {
        super.visitMaxs(maxStack + 2, maxLocals); // the DUP2
      }
    };
  }
}
