package dev.resyncmeter.agent.weaving;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resyncmeter.agent.api.LibraryPresence;
import dev.resyncmeter.agent.api.Part;
import dev.resyncmeter.agent.runtime.AgentMetrics;
import dev.resyncmeter.agent.start.Parts;
import dev.resyncmeter.collector.ResyncMetrics;
import io.kubernetes.client.informer.ResourceEventHandler;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.lang.instrument.ClassFileTransformer;
import java.util.ArrayList;
import java.util.List;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.description.modifier.Visibility;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.dynamic.scaffold.subclass.ConstructorStrategy;
import net.bytebuddy.implementation.StubMethod;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Classes whose hierarchy cannot be resolved, in a class loader that does see client-java (so the
 * handler matcher looks at them): Mockito's inline mock maker and other agents define such classes,
 * and a class path may simply lack a library. None is the agent's business: the real weaving leaves
 * them as they are, reports no fault and counts none.
 */
class UnresolvableHierarchyTest {

  private static final ClassLoader LOADER = UnresolvableHierarchyTest.class.getClassLoader();

  private ResyncMetrics metrics;
  private ClassFileTransformer weaving;

  @BeforeEach
  void installTheWeaving() throws Exception {
    assertThat(LibraryPresence.CLIENT_JAVA_HANDLER.test(LOADER)).as("the test's loader sees client-java").isTrue();
    metrics = new ResyncMetrics();
    AgentMetrics.install(metrics);
    List<ClassFileTransformer> registered = new ArrayList<>();
    new Weaving(Parts.ALL, Parts.ALL, "test", true).install(RecordingJvm.recording(registered), true);
    assertThat(registered).hasSize(1);
    weaving = registered.get(0);
  }

  @AfterEach
  void forgetTheMetrics() {
    AgentMetrics.install(null);
  }

  /** A type that exists while the test makes its class files, and is nowhere to be found afterwards. */
  private static TypeDescription missing(String name, boolean isInterface) {
    return (isInterface ? new ByteBuddy().makeInterface() : new ByteBuddy().subclass(Object.class)).name(name).make().getTypeDescription();
  }

  /** A class {@code name} extending {@code superName}, known by its name alone ({@link #missing}): no loader defines it. */
  private static DynamicType.Builder<?> subclassOf(String superName, String name) {
    return new ByteBuddy().subclass(missing(superName, false), ConstructorStrategy.Default.NO_CONSTRUCTORS).name(name);
  }

  private byte[] load(String name, byte[] classFile) throws Exception {
    return weaving.transform(UnresolvableHierarchyTest.class.getModule(), LOADER, name.replace('.', '/'), null, null, classFile);
  }

  private void assertNoFault() {
    assertThat(metrics.registry().find("resync.meter.errors").functionCounters()).as("faults counted").isEmpty();
    for (Part part : Parts.ALL) {
      assertThat(part.unitSwitch().isOff()).as(part + " switched off").isFalse();
    }
  }

  @Test
  void aClassWhoseSuperClassIsMissingIsLeftAloneWithoutAFault() throws Exception {
    byte[] orphan =
        subclassOf("test.missing.Base", "test.Orphan")
            .defineMethod("onUpdate", void.class, Visibility.PUBLIC)
            .withParameters(Object.class, Object.class)
            .intercept(StubMethod.INSTANCE)
            .make()
            .getBytes();
    assertThat(load("test.Orphan", orphan)).isNull();
    assertNoFault();
  }

  @Test
  void aClassImplementingAMissingInterfaceIsLeftAloneWithoutAFault() throws Exception {
    byte[] injected =
        new ByteBuddy().subclass(Object.class).name("test.Injected").implement(missing("test.missing.Accessor", true)).make().getBytes();
    assertThat(load("test.Injected", injected)).isNull();
    assertNoFault();
  }

  @Test
  void aClassWhoseGrandParentIsMissingIsLeftAloneWithoutAFault() throws Exception {
    // Its super class can be read, but that one's super class cannot: the walk ends there.
    byte[] child = subclassOf("test.missing.GrandParent", "test.Child").make().getBytes();
    List<String> read = new ArrayList<>();
    ClassLoader withChild =
        new ClassLoader(LOADER) {
          @Override
          public InputStream getResourceAsStream(String name) {
            read.add(name);
            return name.equals("test/Child.class") ? new ByteArrayInputStream(child) : super.getResourceAsStream(name);
          }
        };
    byte[] grandChild =
        subclassOf("test.Child", "test.GrandChild")
            .implement(Runnable.class)
            .defineMethod("run", void.class, Visibility.PUBLIC)
            .intercept(StubMethod.INSTANCE)
            .make()
            .getBytes();
    assertThat(weaving.transform(withChild.getUnnamedModule(), withChild, "test/GrandChild", null, null, grandChild)).isNull();
    assertThat(read).as("the walk read the parent and looked for the grand parent").contains("test/Child.class", "test/missing/GrandParent.class");
    assertNoFault();
  }

  @Test
  void aHandlerIsStillWovenBesideThem() throws Exception {
    byte[] handler =
        new ByteBuddy()
            .subclass(Object.class)
            .name("test.Handler")
            .implement(ResourceEventHandler.class)
            .defineMethod("onAdd", void.class, Visibility.PUBLIC)
            .withParameters(Object.class)
            .intercept(StubMethod.INSTANCE)
            .defineMethod("onUpdate", void.class, Visibility.PUBLIC)
            .withParameters(Object.class, Object.class)
            .intercept(StubMethod.INSTANCE)
            .defineMethod("onDelete", void.class, Visibility.PUBLIC)
            .withParameters(Object.class, boolean.class)
            .intercept(StubMethod.INSTANCE)
            .make()
            .getBytes();
    assertThat(load("test.Handler", handler)).as("woven").isNotNull();
    assertNoFault();
  }
}
