package dev.resyncmeter.agent.weaving;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.informer.ResourceEventHandler;
import java.io.InputStream;
import java.util.List;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.description.type.TypeDescription;
import org.junit.jupiter.api.Test;

/**
 * Which handler interfaces a class implements, read from class files alone: through super classes
 * and super interfaces, never failing on what it cannot read (another agent's interfaces defined
 * without a class file), and the same for a class already loaded.
 */
class SuperTypesTest {

  private static final ClassLoader LOADER = SuperTypesTest.class.getClassLoader();
  private static final String HANDLER = ResourceEventHandler.class.getName();
  private static final String FABRIC8_HANDLER = "io.fabric8.kubernetes.client.informers.ResourceEventHandler";
  private static final String INJECTED = "io.opentelemetry.javaagent.bootstrap.field.VirtualFieldAccessor$Injected";

  private final SuperTypes superTypes = new SuperTypes(List.of(FABRIC8_HANDLER, HANDLER));
  private final int handlerBit = superTypes.bit(HANDLER);

  // the handler classes of the early handlers' test: one through a super class, one an interface
  private static final Class<?> SUBCLASSED_HANDLER = EarlyHandlersTest.SubclassedHandler.class;
  private static final Class<?> SPECIAL_HANDLER = EarlyHandlersTest.SpecialHandler.class;

  abstract static class SpecialHandlerImpl implements EarlyHandlersTest.SpecialHandler {}

  private static byte[] classFile(Class<?> type) throws Exception {
    try (InputStream in = LOADER.getResourceAsStream(type.getName().replace('.', '/') + ".class")) {
      return in.readAllBytes();
    }
  }

  /** A class as another agent leaves it: implementing an interface defined without a class file. */
  private static byte[] rewrittenByAnotherAgent(String name, Class<?>... realInterfaces) {
    TypeDescription injected = new ByteBuddy().makeInterface().name(INJECTED).make().getTypeDescription();
    return new ByteBuddy().subclass(Object.class).name(name).implement(injected).implement(realInterfaces).make().getBytes();
  }

  @Test
  void superClassesAndSuperInterfacesAreWalked() throws Exception {
    assertThat(superTypes.implementedBy(LOADER, classFile(SUBCLASSED_HANDLER))).isEqualTo(handlerBit);
    assertThat(superTypes.implementedBy(LOADER, classFile(SpecialHandlerImpl.class))).isEqualTo(handlerBit);
    assertThat(superTypes.implementedBy(LOADER, classFile(SuperTypesTest.class))).isZero();
  }

  @Test
  void anInterfaceImplementsNothing() throws Exception {
    assertThat(superTypes.implementedBy(LOADER, classFile(SPECIAL_HANDLER))).isZero();
  }

  @Test
  void eachInterfaceHasItsOwnBit() {
    assertThat(superTypes.bit(FABRIC8_HANDLER)).isEqualTo(1);
    assertThat(handlerBit).isEqualTo(2);
    assertThat(superTypes.bit(Runnable.class.getName())).isZero();
  }

  @Test
  void aHandlerWithAnInjectedInterfaceIsAHandler() {
    assertThat(superTypes.implementedBy(LOADER, rewrittenByAnotherAgent("test.RewrittenHandler", ResourceEventHandler.class))).isEqualTo(handlerBit);
  }

  @Test
  void anotherClassWithAnInjectedInterfaceIsNotAHandlerAndDoesNotFail() {
    assertThat(superTypes.implementedBy(LOADER, rewrittenByAnotherAgent("test.RewrittenRunnable", Runnable.class))).isZero();
  }

  @Test
  void whatIsNotAClassFileImplementsNothing() {
    assertThat(superTypes.implementedBy(LOADER, new byte[] {1, 2, 3})).isZero();
    assertThat(superTypes.implementedBy(LOADER, new byte[] {(byte) 0xCA, (byte) 0xFE, (byte) 0xBA, (byte) 0xBE, 0, 0, 0, 61, 0, 9})).isZero();
    assertThat(superTypes.implementedBy(LOADER, null)).isZero();
  }

  @Test
  void aLoadedClassIsAnsweredTheSameFromReflection() throws Exception {
    for (Class<?> type : List.of(SUBCLASSED_HANDLER, SpecialHandlerImpl.class, SPECIAL_HANDLER, SuperTypesTest.class)) {
      assertThat(superTypes.implementedBy(type)).as(type.getName()).isEqualTo(superTypes.implementedBy(LOADER, classFile(type)));
    }
  }

  @Test
  void aSuperTypeThatFailedToBeReadIsReadAgainNextTime() throws Exception {
    String base = EarlyHandlersTest.BaseHandler.class.getName().replace('.', '/') + ".class";
    int[] failures = {1};
    ClassLoader flaky =
        new ClassLoader(LOADER) {
          @Override
          public InputStream getResourceAsStream(String name) {
            if (name.equals(base) && failures[0]-- > 0) {
              throw new IllegalStateException("zip file closed");
            }
            return super.getResourceAsStream(name);
          }
        };

    assertThat(superTypes.implementedBy(flaky, classFile(SUBCLASSED_HANDLER))).as("while its super class cannot be read").isZero();
    assertThat(superTypes.implementedBy(flaky, classFile(SUBCLASSED_HANDLER))).isEqualTo(handlerBit);
  }
}
