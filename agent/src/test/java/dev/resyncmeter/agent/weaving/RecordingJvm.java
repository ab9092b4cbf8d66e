package dev.resyncmeter.agent.weaving;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;

/** A JVM for the weaving's tests: these classes loaded, and what the weaving asks of it recorded. */
final class RecordingJvm {

  private RecordingJvm() {}

  /**
   * A JVM with {@code loaded} loaded, that can retransform them all: the transformers registered go to
   * {@code transformers}, the classes retransformed to {@code retransformed}, and each look at the
   * loaded classes counts in {@code lookups[0]}.
   */
  static Instrumentation of(List<? super ClassFileTransformer> transformers, List<Class<?>> retransformed, int[] lookups, Class<?>... loaded) {
    return (Instrumentation)
        Proxy.newProxyInstance(
            RecordingJvm.class.getClassLoader(),
            new Class<?>[] {Instrumentation.class},
            (proxy, method, args) -> {
              switch (method.getName()) {
                case "addTransformer" -> transformers.add((ClassFileTransformer) args[0]);
                case "getAllLoadedClasses" -> {
                  lookups[0]++;
                  return loaded;
                }
                case "retransformClasses" -> retransformed.addAll(List.of((Class<?>[]) args[0]));
                case "isModifiableClass", "isRetransformClassesSupported", "isRedefineClassesSupported" -> {
                  return true;
                }
                default -> throw new UnsupportedOperationException(method.getName());
              }
              return null;
            });
  }

  /** A JVM with no class loaded, recording the transformers registered. */
  static Instrumentation recording(List<? super ClassFileTransformer> transformers) {
    return of(transformers, new ArrayList<>(), new int[1]);
  }

  /** A JVM that is exiting: asked for its loaded classes, it answers null, as a JVM past its end does. */
  static Instrumentation exiting(List<Class<?>> retransformed) {
    return of(new ArrayList<>(), retransformed, new int[1], (Class<?>[]) null);
  }
}
