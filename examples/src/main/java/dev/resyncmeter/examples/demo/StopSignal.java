package dev.resyncmeter.examples.demo;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Ctrl-C (SIGINT) and SIGTERM end the demo's loop rather than the JVM: the demo then prints the whole
 * run's report, stops its controllers and exits with code 0. Left to the JVM, either signal would run
 * the shutdown hooks at once, the agent's among them, which closes the endpoint the report reads: the
 * last thing printed would be the last 10 s window. A second signal ends the JVM as the first would
 * have (exit code 128 + the signal's number), for a report that does not come.
 *
 * <p>Through {@code sun.misc.Signal} (module {@code jdk.unsupported}, there in every JDK 17+), by
 * reflection: javac warns of every compiled mention of it, and the build is otherwise warning-free.
 */
final class StopSignal {

  private final CountDownLatch received = new CountDownLatch(1);

  private StopSignal() {}

  /**
   * Takes SIGINT and SIGTERM over from the JVM. A signal the JVM does not hand over (with {@code -Xrs},
   * or one ignored when the JVM started, as in a background job of a shell without job control) keeps
   * its old handling.
   */
  static StopSignal install() {
    StopSignal stop = new StopSignal();
    try {
      Class<?> signal = Class.forName("sun.misc.Signal");
      Class<?> handlerType = Class.forName("sun.misc.SignalHandler");
      Method number = signal.getMethod("getNumber");
      Object handler =
          Proxy.newProxyInstance(
              StopSignal.class.getClassLoader(),
              new Class<?>[] {handlerType},
              (proxy, method, args) ->
                  switch (method.getName()) {
                    case "handle" -> {
                      stop.received((Integer) number.invoke(args[0]));
                      yield null;
                    }
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> "demo stop signal";
                  });
      Method handle = signal.getMethod("handle", signal, handlerType);
      for (String name : List.of("INT", "TERM")) {
        try {
          handle.invoke(null, signal.getConstructor(String.class).newInstance(name), handler);
        } catch (InvocationTargetException notHandedOver) {
          // the JVM's own handling stays (IllegalArgumentException: -Xrs, or no such signal here)
        }
      }
    } catch (ReflectiveOperationException | RuntimeException noSignals) {
      // a JVM without sun.misc.Signal: Ctrl-C ends it at once, as it did
    }
    return stop;
  }

  /** On the JVM's signal thread: the first ends the loop, the second the JVM. */
  private void received(int signal) {
    if (received.getCount() == 0) {
      System.exit(128 + signal);
    }
    received.countDown();
  }

  /** Waits {@code time}, less when a signal comes: whether one came (also before the call). */
  boolean await(Duration time) throws InterruptedException {
    return received.await(time.toMillis(), TimeUnit.MILLISECONDS);
  }
}
