package dev.resyncmeter.agent;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.dynamic.TypeResolutionStrategy;
import net.bytebuddy.pool.TypePool;
import net.bytebuddy.utility.JavaModule;

/**
 * The agent's class file transformer: for each class not ignored by name, every rule that matches it
 * adds its advice, and ByteBuddy writes the class once. Not ByteBuddy's {@code AgentBuilder}: its
 * transformer class generates a subclass of itself with ByteBuddy when it is first loaded (for the
 * Java 9 module signature this class simply declares), a quarter of a second of the host's start on
 * two cores. A fault is reported to the listener and leaves the class as it was.
 */
final class Weaver implements ClassFileTransformer {

  private final ByteBuddy byteBuddy;
  private final Weaving.NamePrefixes ignored;
  private final List<WeavingRules.Rule> rules;
  private final Weaving.FaultListener listener;
  /** Set while this thread weaves: a class its weaving loads goes by unchanged, as with ByteBuddy's own transformer. */
  private final ThreadLocal<Boolean> weaving = new ThreadLocal<>();

  Weaver(ByteBuddy byteBuddy, Weaving.NamePrefixes ignored, List<WeavingRules.Rule> rules, Weaving.FaultListener listener) {
    this.byteBuddy = byteBuddy;
    this.ignored = ignored;
    this.rules = List.copyOf(rules);
    this.listener = listener;
  }

  @Override
  public byte[] transform(ClassLoader loader, String className, Class<?> classBeingRedefined, ProtectionDomain domain, byte[] classFile) {
    return transform(null, loader, className, classBeingRedefined, domain, classFile);
  }

  @Override
  public byte[] transform(
      Module module, ClassLoader loader, String className, Class<?> classBeingRedefined, ProtectionDomain domain, byte[] classFile) {
    if (className == null || weaving.get() != null) {
      return null;
    }
    String name = className.replace('/', '.');
    if (ignored.ignores(name)) {
      return null;
    }
    weaving.set(Boolean.TRUE);
    try {
      return weave(module, loader, name, domain, classFile);
    } finally {
      weaving.remove();
    }
  }

  private byte[] weave(Module module, ClassLoader loader, String name, ProtectionDomain domain, byte[] classFile) {
    try {
      ClassFileLocator locator =
          new ClassFileLocator.Compound(
              ClassFileLocator.Simple.of(name, classFile),
              loader == null ? ClassFileLocator.ForClassLoader.ofBootLoader() : ClassFileLocator.ForClassLoader.of(loader));
      TypePool pool =
          new TypePool.LazyFacade(
              new TypePool.Default.WithLazyResolution(
                  TypePool.CacheProvider.Simple.withObjectType(), locator, TypePool.Default.ReaderMode.FAST));
      TypeDescription type = pool.describe(name).resolve();
      JavaModule javaModule = module == null ? null : JavaModule.of(module);
      DynamicType.Builder<?> builder = null;
      for (WeavingRules.Rule rule : rules) {
        if ((rule.loaders() == null || rule.loaders().matches(loader)) && rule.types().matches(type)) {
          if (builder == null) {
            builder = byteBuddy.decorate(type, locator);
          }
          builder = rule.transformer().transform(builder, type, loader, javaModule, domain);
        }
      }
      if (builder == null) {
        return null;
      }
      byte[] woven = builder.make(TypeResolutionStrategy.Disabled.INSTANCE, pool).getBytes();
      listener.woven(name, loader);
      return woven;
    } catch (Throwable t) {
      listener.failed(name, t);
      return null;
    } finally {
      listener.completed();
    }
  }

  /**
   * Weaves the classes already loaded that a rule matches: retransformed in small batches with a
   * pause between them (each batch stops the world), looking again until a look finds no new one (the
   * host goes on loading classes meanwhile).
   */
  void retransformLoaded(Instrumentation instrumentation, int batchSize, long pauseMillis) {
    Set<Class<?>> looked = Collections.newSetFromMap(new IdentityHashMap<>());
    for (int look = 0; look < 100; look++) {
      List<Class<?>> matched = new ArrayList<>();
      for (Class<?> type : instrumentation.getAllLoadedClasses()) {
        if (looked.add(type) && matchesLoaded(instrumentation, type)) {
          matched.add(type);
        }
      }
      if (matched.isEmpty()) {
        return;
      }
      for (int from = 0; from < matched.size(); from += batchSize) {
        if (from > 0) {
          Weaving.sleep(pauseMillis);
        }
        List<Class<?>> batch = matched.subList(from, Math.min(matched.size(), from + batchSize));
        try {
          instrumentation.retransformClasses(batch.toArray(new Class<?>[0]));
        } catch (Throwable t) {
          for (Class<?> type : batch) {
            listener.failed(type.getName(), t);
          }
        }
      }
    }
  }

  private boolean matchesLoaded(Instrumentation instrumentation, Class<?> type) {
    try {
      if (type.isArray() || type.isPrimitive() || type.isHidden() || ignored.ignores(type.getName()) || !instrumentation.isModifiableClass(type)) {
        return false;
      }
      TypeDescription description = TypeDescription.ForLoadedType.of(type);
      for (WeavingRules.Rule rule : rules) {
        if ((rule.loaders() == null || rule.loaders().matches(type.getClassLoader())) && rule.types().matches(description)) {
          return true;
        }
      }
      return false;
    } catch (Throwable t) {
      listener.failed(type.getName(), t);
      return false;
    }
  }
}
