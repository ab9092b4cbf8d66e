package dev.resyncmeter.agent.weaving;

import dev.resyncmeter.agent.api.WeavingRules;
import java.security.ProtectionDomain;
import java.util.List;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.dynamic.TypeResolutionStrategy;
import net.bytebuddy.dynamic.scaffold.MethodGraph;
import net.bytebuddy.implementation.Implementation;
import net.bytebuddy.pool.TypePool;
import net.bytebuddy.utility.JavaModule;

/**
 * A class woven by ByteBuddy, each matching rule adding its advice and ByteBuddy writing the class
 * once: for what was not woven ahead of time (the application's handler classes, library versions
 * the agent was not built with, retransformed classes) and, at build time, for what is. Made on first
 * need, so that a host whose classes were all woven ahead of time runs none of ByteBuddy.
 */
final class ByteBuddyWeaving {

  // Advice rewrites only methods a class declares, so no method graph of its super types is needed;
  // building one reads every interface's class file, and another agent's injected interfaces
  // (OpenTelemetry's VirtualFieldAccessor) have none, which failed the whole class. No implementation
  // context: advice adds no member, so a retransformation can weave it too (the early handlers, a JVM
  // attached to).
  private final ByteBuddy byteBuddy =
      new ByteBuddy().with(MethodGraph.Compiler.ForDeclaredMethods.INSTANCE).with(Implementation.Context.Disabled.Factory.INSTANCE);

  /** {@code classFile} of {@code name} with the transformers of {@code rules} applied, all of which match it. */
  byte[] weave(List<WeavingRules.Rule> rules, Module module, ClassLoader loader, String name, ProtectionDomain domain, byte[] classFile) {
    ClassFileLocator locator =
        new ClassFileLocator.Compound(
            ClassFileLocator.Simple.of(name, classFile),
            loader == null ? ClassFileLocator.ForClassLoader.ofBootLoader() : ClassFileLocator.ForClassLoader.of(loader));
    TypePool pool =
        new TypePool.LazyFacade(
            new TypePool.Default.WithLazyResolution(TypePool.CacheProvider.Simple.withObjectType(), locator, TypePool.Default.ReaderMode.FAST));
    TypeDescription type = pool.describe(name).resolve();
    JavaModule javaModule = module == null ? null : JavaModule.of(module);
    DynamicType.Builder<?> builder = byteBuddy.decorate(type, locator);
    for (WeavingRules.Rule rule : rules) {
      builder = rule.transformer().transform(builder, type, loader, javaModule, domain);
    }
    return builder.make(TypeResolutionStrategy.Disabled.INSTANCE, pool).getBytes();
  }
}
