package dev.resyncmeter.agent.weaving;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resyncmeter.agent.start.Parts;
import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

class StartGateTest {

  private static final ClassLoader LOADER = StartGateTest.class.getClassLoader();
  private static final byte[] WOVEN = {1, 2, 3};

  private static byte[] classFile(Class<?> type) throws IOException {
    return classFile(type.getName().replace('.', '/') + ".class");
  }

  private static byte[] classFile(String resource) throws IOException {
    try (InputStream in = StartGateTest.class.getResourceAsStream("/" + resource)) {
      return in.readAllBytes();
    }
  }

  @Test
  void onlyTheClassesWovenByNameWait() {
    assertThat(Parts.wovenByName(Parts.ALL))
        .contains("io/kubernetes/client/informer/cache/ProcessorListener", "io/kubernetes/client/extended/workqueue/DefaultWorkQueue")
        .doesNotContain("io/kubernetes/client/informer/SharedInformerFactory", "io/kubernetes/client/informer/ResourceEventHandler");
  }

  @Test
  void theClassesOfADisabledPartDoNotWait() throws Exception {
    StartGate gate = new StartGate(Parts.wovenByName(Parts.without(java.util.Set.of("clientjava-workqueue"))));
    byte[] aClass = classFile(StartGate.class);
    assertThat(load(gate, "io/kubernetes/client/extended/workqueue/DefaultWorkQueue", aClass).get(10, TimeUnit.SECONDS))
        .as("a class only the disabled part weaves loads at once, unwoven")
        .isNull();
    CompletableFuture<byte[]> listener = load(gate, "io/kubernetes/client/informer/cache/ProcessorListener", aClass);
    assertThat(waitBriefly(listener)).as("the other parts' classes still wait").isFalse();
    gate.open();
    listener.get(10, TimeUnit.SECONDS);
  }

  /** A weaving that answers {@link #WOVEN} for every class and records what it was given. */
  static final class RecordingWeaving implements ClassFileTransformer {
    final List<String> seen = new ArrayList<>();

    @Override
    public synchronized byte[] transform(
        Module module, ClassLoader loader, String name, Class<?> redefined, ProtectionDomain domain, byte[] bytes) {
      seen.add(name);
      return WOVEN;
    }
  }

  private static CompletableFuture<byte[]> load(StartGate gate, String name, byte[] bytes) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return gate.transform(StartGateTest.class.getModule(), LOADER, name, null, null, bytes);
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
  }

  private static List<String> names(List<StartGate.Passed> passed) {
    List<String> names = new ArrayList<>();
    for (StartGate.Passed type : passed) {
      assertThat(type.loader).isSameAs(LOADER);
      names.add(type.name);
    }
    return names;
  }

  @Test
  void aClientJavaClassWaitsUntilTheGateOpensAndIsWovenThen() throws Exception {
    StartGate gate = new StartGate(Parts.wovenByName(Parts.ALL));
    List<Object> registered = new ArrayList<>();
    byte[] aClass = classFile(StartGate.class);
    CompletableFuture<byte[]> listener = load(gate, "io/kubernetes/client/informer/cache/ProcessorListener", aClass);
    assertThat(waitBriefly(listener)).as("loads before the weaving is there").isFalse();

    RecordingWeaving weaving = new RecordingWeaving();
    gate.delegatingTo(RecordingJvm.recording(registered)).addTransformer(weaving, true);
    assertThat(waitBriefly(listener)).as("loads before the weaving is active").isFalse();
    gate.activate();
    assertThat(waitBriefly(listener)).as("loads before the early handlers are woven").isFalse();

    gate.open();
    assertThat(listener.get(10, TimeUnit.SECONDS)).isSameAs(WOVEN);
    assertThat(weaving.seen).containsExactly("io/kubernetes/client/informer/cache/ProcessorListener");
    assertThat(registered).as("the weaving is the gate's, not a second transformer of the JVM's").isEmpty();
  }

  @Test
  void untilActiveOtherClassesGoByUnchangedAndAreNoted() throws Exception {
    StartGate gate = new StartGate(Parts.wovenByName(Parts.ALL));
    RecordingWeaving weaving = new RecordingWeaving();
    gate.delegatingTo(RecordingJvm.recording(new ArrayList<>())).addTransformer(weaving, true);
    byte[] aClass = classFile(StartGate.class);
    byte[] anInterface = classFile(Runnable.class);
    assertThat(load(gate, "com/example/MyHandler", aClass).get(10, TimeUnit.SECONDS)).isNull();
    assertThat(load(gate, "io/kubernetes/client/informer/ResourceEventHandler", anInterface).get(10, TimeUnit.SECONDS)).isNull();
    assertThat(load(gate, "io/kubernetes/client/informer/SharedInformerFactory", aClass).get(10, TimeUnit.SECONDS))
        .as("client-java's classes that are not woven by name do not wait")
        .isNull();
    assertThat(load(gate, "java/lang/Whatever", aClass).get(10, TimeUnit.SECONDS)).isNull();
    assertThat(gate.transform(null, null, "com/example/BootLoaded", null, null, aClass)).as("the boot loader holds no client-java").isNull();
    assertThat(gate.transform(null, LOADER, "com/example/Retransformed", StartGate.class, null, aClass))
        .as("another agent's retransformation before the weaving is active")
        .isNull();
    assertThat(weaving.seen).as("the weaving is not run on a host thread before it is active").isEmpty();

    assertThat(names(gate.activate()))
        .as("the classes to look at once the weaving is active; never the JDK's, the boot loader's, or a redefinition")
        .containsExactly(
            "com/example/MyHandler", "io/kubernetes/client/informer/ResourceEventHandler", "io/kubernetes/client/informer/SharedInformerFactory");
    assertThat(load(gate, "com/example/Later", aClass).get(10, TimeUnit.SECONDS)).isSameAs(WOVEN);
    assertThat(gate.activate()).as("nothing is noted once active").isEmpty();
    assertThat(weaving.seen).containsExactly("com/example/Later");
  }

  @Test
  void theStartThreadIsWovenAtOnceAndNeverWaitsForItself() throws Exception {
    StartGate gate = new StartGate(Parts.wovenByName(Parts.ALL));
    gate.startedBy(Thread.currentThread());
    byte[] aClass = classFile(StartGate.class);
    assertThat(gate.transform(null, LOADER, "io/kubernetes/client/informer/cache/DeltaFIFO", null, null, aClass)).isNull();
    RecordingWeaving weaving = new RecordingWeaving();
    gate.delegatingTo(RecordingJvm.recording(new ArrayList<>())).addTransformer(weaving, true);
    assertThat(gate.transform(null, LOADER, "com/example/MyHandler", StartGate.class, null, aClass))
        .as("the installation's own retransformation")
        .isSameAs(WOVEN);
  }

  @Test
  void aFailedStartOpensTheGateAndClassesLoadUnwoven() throws Exception {
    StartGate gate = new StartGate(Parts.wovenByName(Parts.ALL));
    CompletableFuture<byte[]> informer = load(gate, "io/kubernetes/client/informer/impl/DefaultSharedIndexInformer", classFile(StartGate.class));
    gate.open();
    assertThat(informer.get(10, TimeUnit.SECONDS)).isNull();
    assertThat(gate.isOpen()).isTrue();
    assertThat(load(gate, "io/kubernetes/client/informer/cache/DeltaFIFO", classFile(StartGate.class)).get(10, TimeUnit.SECONDS)).isNull();
  }

  private static boolean waitBriefly(CompletableFuture<?> future) throws Exception {
    try {
      future.get(300, TimeUnit.MILLISECONDS);
      return true;
    } catch (TimeoutException stillWaiting) {
      return false;
    }
  }
}
