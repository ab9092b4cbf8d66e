package dev.resyncmeter.agent;

import static net.bytebuddy.matcher.ElementMatchers.hasSuperType;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.pool.TypePool;
import org.junit.jupiter.api.Test;

/**
 * Classes as another agent leaves them: implementing an interface that agent defined without a class
 * file (so no type pool can read it). Whether such a class is a handler must still be answered.
 */
class HasSuperTypeNamedTest {

  private static final String HANDLER = ResourceEventHandler.class.getName();
  private static final String INJECTED = "io.opentelemetry.javaagent.bootstrap.field.VirtualFieldAccessor$Injected";

  /** The generated class, described as the agent sees it: its own bytes, everything else from the loader. */
  private static TypeDescription rewrittenByAnotherAgent(String name, Class<?>... realInterfaces) {
    TypeDescription injected = new ByteBuddy().makeInterface().name(INJECTED).make().getTypeDescription();
    byte[] bytes =
        new ByteBuddy().subclass(Object.class).name(name).implement(injected).implement(realInterfaces).make().getBytes();
    ClassFileLocator locator =
        new ClassFileLocator.Compound(
            ClassFileLocator.Simple.of(name, bytes), ClassFileLocator.ForClassLoader.of(HasSuperTypeNamedTest.class.getClassLoader()));
    return TypePool.Default.WithLazyResolution.of(locator).describe(name).resolve();
  }

  @Test
  void aHandlerWithAnInjectedInterfaceIsAHandler() {
    TypeDescription handler = rewrittenByAnotherAgent("test.RewrittenHandler", ResourceEventHandler.class);
    assertThat(new HasSuperTypeNamed(HANDLER).matches(handler)).isTrue();
  }

  @Test
  void anotherClassWithAnInjectedInterfaceIsNotAHandlerAndDoesNotFail() {
    TypeDescription runnable = rewrittenByAnotherAgent("test.RewrittenRunnable", Runnable.class);
    assertThat(new HasSuperTypeNamed(HANDLER).matches(runnable)).isFalse();
  }

  @Test
  void byteBuddysOwnHierarchyMatcherFailsOnTheSameClass() {
    // Why this matcher exists: hasSuperType reads the injected interface's class file, and there is none.
    TypeDescription runnable = rewrittenByAnotherAgent("test.RewrittenRunnable2", Runnable.class);
    assertThatThrownBy(() -> hasSuperType(named(HANDLER)).matches(runnable)).isInstanceOf(IllegalStateException.class);
  }

  abstract static class BaseHandler implements ResourceEventHandler<V1ConfigMap> {}

  static class SubclassedHandler extends BaseHandler {
    @Override
    public void onAdd(V1ConfigMap obj) {}

    @Override
    public void onUpdate(V1ConfigMap oldObj, V1ConfigMap newObj) {}

    @Override
    public void onDelete(V1ConfigMap obj, boolean deletedFinalStateUnknown) {}
  }

  interface SpecialHandler extends ResourceEventHandler<V1ConfigMap> {}

  @Test
  void superClassesAndSuperInterfacesAreWalked() {
    HasSuperTypeNamed matcher = new HasSuperTypeNamed(HANDLER);
    assertThat(matcher.matches(TypeDescription.ForLoadedType.of(SubclassedHandler.class))).isTrue();
    assertThat(matcher.matches(TypeDescription.ForLoadedType.of(SpecialHandler.class))).isTrue();
    assertThat(matcher.matches(TypeDescription.ForLoadedType.of(String.class))).isFalse();
  }
}
