package dev.resyncmeter.agent.clientjava.controller;

import static net.bytebuddy.matcher.ElementMatchers.isAbstract;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.resyncmeter.agent.api.LayoutCheckedAdvice;
import dev.resyncmeter.collector.ControllerMetrics;
import dev.resyncmeter.collector.ThreadContext;
import io.kubernetes.client.extended.controller.reconciler.Result;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.ClassFileVersion;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.modifier.Visibility;
import net.bytebuddy.dynamic.loading.ClassLoadingStrategy;
import net.bytebuddy.implementation.MethodCall;

/**
 * Times a controller's reconciler, whether a class or a lambda, by standing in front of it as an
 * implementation of client-java's {@code Reconciler} interface. For the interface as client-java
 * declares it, the stand-in is {@link TimedReconcilerStandIn}, compiled with the agent: its class file
 * is defined beside the interface, in a child of the interface's class loader. That costs the host's
 * thread building the controller one small class definition, where generating the class with ByteBuddy
 * cost it about 0.1 s of start-up. An interface of another shape (a client version that declares more
 * abstract methods) gets a stand-in generated with ByteBuddy, which forwards whatever it declares. In
 * both, {@code reconcile} calls the reconciler directly (no reflection, no argument array), so its own
 * result and exceptions pass through untouched: a checked exception the interface does not declare
 * (Kotlin, {@code @SneakyThrows}) is not wrapped, as a {@code java.lang.reflect.Proxy} would wrap it.
 */
final class TimedReconciler {

  static final String TARGET_FIELD = "target";
  static final String TIMER_FIELD = "timer";

  /** One stand-in class per {@code Reconciler} interface, defined beside it in a child loader. */
  private static final ClassValue<Class<?>> STAND_IN =
      new ClassValue<>() {
        @Override
        protected Class<?> computeValue(Class<?> reconcilerInterface) {
          if (declaresOnlyReconcile(reconcilerInterface)) {
            Class<?> compiled = compiled(reconcilerInterface);
            if (reconcilerInterface.isAssignableFrom(compiled)) {
              return compiled;
            }
          }
          return Generated.standIn(reconcilerInterface);
        }
      };

  private TimedReconciler() {}

  /** The interface {@link TimedReconcilerStandIn} implements, by name: the agent's own loader may not see it. */
  private static final String RECONCILER = "io.kubernetes.client.extended.controller.reconciler.Reconciler";

  /** Whether the interface is client-java's, with {@code Result reconcile(Request)} its one abstract method, as {@link TimedReconcilerStandIn} implements it. */
  static boolean declaresOnlyReconcile(Class<?> reconcilerInterface) {
    String reconcilerPackage = reconcilerInterface.getPackageName() + ".";
    int abstractMethods = 0;
    boolean reconcile = false;
    for (Method method : reconcilerInterface.getMethods()) {
      if (Modifier.isAbstract(method.getModifiers())) {
        abstractMethods++;
        reconcile |=
            method.getName().equals("reconcile")
                && method.getParameterCount() == 1
                && method.getParameterTypes()[0].getName().equals(reconcilerPackage + "Request")
                && method.getReturnType().getName().equals(reconcilerPackage + "Result");
      }
    }
    return abstractMethods == 1 && reconcile && reconcilerInterface.getName().equals(RECONCILER);
  }

  /**
   * {@link TimedReconcilerStandIn}'s class file, defined in a child of the interface's class loader.
   * The build ships it as {@code TimedReconcilerStandIn.bytes}, not as a class of the agent's own.
   */
  private static Class<?> compiled(Class<?> reconcilerInterface) {
    String name = TimedReconciler.class.getPackageName() + ".TimedReconcilerStandIn";
    byte[] classFile;
    try (InputStream in = TimedReconciler.class.getResourceAsStream("TimedReconcilerStandIn.bytes")) {
      if (in == null) {
        throw new IllegalStateException("the agent jar has no class file for " + name);
      }
      classFile = in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new StandInLoader(reconcilerInterface.getClassLoader()).define(name, classFile);
  }

  /** Holds one stand-in class; everything else it is asked for comes from its parent, the interface's loader. */
  private static final class StandInLoader extends ClassLoader {
    StandInLoader(ClassLoader parent) {
      super(parent);
    }

    Class<?> define(String name, byte[] classFile) {
      return defineClass(name, classFile, 0, classFile.length);
    }
  }

  /**
   * A stand-in generated for an interface of another shape: every abstract method forwards to the
   * reconciler. A class of its own: verifying {@link TimedReconciler} would otherwise load ByteBuddy's
   * classes that this code names, in every host that builds a controller.
   */
  private static final class Generated {
    static Class<?> standIn(Class<?> reconcilerInterface) {
      MethodCall forward = MethodCall.invokeSelf().onField(TARGET_FIELD).withAllArguments();
      return new ByteBuddy(ClassFileVersion.JAVA_V8)
          .subclass(Object.class)
          .name(reconcilerInterface.getName() + "$TimedByResyncMeter")
          .implement(reconcilerInterface)
          .defineField(TARGET_FIELD, reconcilerInterface, Visibility.PUBLIC)
          .defineField(TIMER_FIELD, ReconcileTimer.class, Visibility.PUBLIC)
          // Anything else the interface may declare, and Object's identity methods, go to the reconciler.
          .method(isAbstract().or(named("toString").and(takesArguments(0))).or(named("hashCode").and(takesArguments(0))).or(named("equals").and(takesArguments(1))))
          .intercept(forward)
          .method(named("reconcile").and(takesArguments(1)).and(isAbstract()))
          .intercept(Advice.to(TimedReconcile.class).withExceptionHandler(LayoutCheckedAdvice.faultsTo(ControllerBridge.SWITCH.component())).wrap(forward))
          .make()
          .load(reconcilerInterface.getClassLoader(), ClassLoadingStrategy.Default.WRAPPER)
          .getLoaded();
    }
  }

  /** The reconciler behind a timing stand-in; an already timed one is returned as it is. */
  static Object wrap(Object reconciler, ControllerMetrics metrics, Class<?> reconcilerInterface) throws ReflectiveOperationException {
    if (reconciler == null || !reconcilerInterface.isInterface()) {
      return reconciler;
    }
    Class<?> standIn = STAND_IN.get(reconcilerInterface);
    if (standIn.isInstance(reconciler)) {
      return reconciler;
    }
    Object timed = standIn.getDeclaredConstructor().newInstance();
    standIn.getField(TARGET_FIELD).set(timed, reconciler);
    standIn.getField(TIMER_FIELD).set(timed, new ReconcileTimer(metrics));
    return timed;
  }

  /**
   * The stand-in's {@code reconcile}: the clock before (the get's, when the worker just took the
   * item), the clock and the result after. Inlined into the generated
   * class, so the {@code Result} it names resolves in the host's class loader; its signatures name
   * only types the agent's own loader sees.
   */
  static final class TimedReconcile {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(
        @Advice.Local("context") ThreadContext context, @Advice.Local("start") long start, @Advice.FieldValue(TIMER_FIELD) ReconcileTimer timer) {
      context = ThreadContext.current();
      start = timer.started(context);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(
        @Advice.Local("context") ThreadContext context,
        @Advice.Local("start") long start,
        @Advice.FieldValue(TIMER_FIELD) ReconcileTimer timer,
        @Advice.Return Object result,
        @Advice.Thrown Throwable thrown) {
      timer.finished(context, start, result instanceof Result && ((Result) result).isRequeue(), thrown != null);
    }
  }
}
