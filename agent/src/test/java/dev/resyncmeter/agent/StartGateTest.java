package dev.resyncmeter.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Proxy;
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

  @interface Marker {}

  enum Color {
    RED
  }

  record Point(long x, double y) {}

  /** Long and double constants take two constant pool entries: the walk must skip both. */
  static final class WithWideConstants {
    static final long BIG = 1L << 40;
    static final double HALF = 0.5;

    double scaled(long value) {
      return value * HALF + BIG;
    }
  }

  @Test
  void interfacesAndAnnotationsAreToldFromClassesByTheirClassFile() throws IOException {
    assertThat(StartGate.isInterface(classFile(Runnable.class))).isTrue();
    assertThat(StartGate.isInterface(classFile(Marker.class))).isTrue();
    assertThat(StartGate.isInterface(classFile("java/util/Map.class"))).isTrue();
    assertThat(StartGate.isInterface(classFile(StartGate.class))).isFalse();
    assertThat(StartGate.isInterface(classFile(Color.class))).isFalse();
    assertThat(StartGate.isInterface(classFile(Point.class))).isFalse();
    assertThat(StartGate.isInterface(classFile(WithWideConstants.class))).isFalse();
    assertThat(StartGate.isInterface(classFile("java/lang/Math.class"))).isFalse();
  }

  @Test
  void unreadableBytesCountAsAClassWhichWaits() {
    assertThat(StartGate.isInterface(new byte[0])).isFalse();
    assertThat(StartGate.isInterface(new byte[] {(byte) 0xca, (byte) 0xfe, (byte) 0xba, (byte) 0xbe, 0, 0, 0, 61, 0, 5, 99})).isFalse();
  }

  @Test
  void onlyClientJavasInformerAndExtendedPackagesAreWoven() {
    assertThat(StartGate.inWovenPackage("io/kubernetes/client/informer/cache/ProcessorListener")).isTrue();
    assertThat(StartGate.inWovenPackage("io/kubernetes/client/extended/workqueue/DefaultWorkQueue")).isTrue();
    assertThat(StartGate.inWovenPackage("io/kubernetes/client/openapi/ApiClient")).isFalse();
    assertThat(StartGate.inWovenPackage("com/example/MyHandler")).isFalse();
    assertThat(StartGate.inWovenPackage(null)).isFalse();
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

  /** An instrumentation that only records transformers registered with the JVM. */
  private static Instrumentation jvm(List<Object> registered) {
    return (Instrumentation)
        Proxy.newProxyInstance(
            LOADER,
            new Class<?>[] {Instrumentation.class},
            (proxy, method, args) -> {
              if (method.getName().equals("addTransformer")) {
                registered.add(args[0]);
              }
              return method.getName().equals("getAllLoadedClasses") ? new Class<?>[0] : null;
            });
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

  @Test
  void aClientJavaClassWaitsForTheWeavingAndIsWovenByIt() throws Exception {
    StartGate gate = new StartGate();
    List<Object> registered = new ArrayList<>();
    byte[] aClass = classFile(StartGate.class);
    CompletableFuture<byte[]> listener = load(gate, "io/kubernetes/client/informer/cache/ProcessorListener", aClass);
    assertThat(waitBriefly(listener)).as("loads before the weaving is there").isFalse();

    RecordingWeaving weaving = new RecordingWeaving();
    gate.delegatingTo(jvm(registered)).addTransformer(weaving, true);
    assertThat(waitBriefly(listener)).as("waits until the weaving is installed, retransformation included").isFalse();

    gate.open();
    assertThat(listener.get(10, TimeUnit.SECONDS)).isSameAs(WOVEN);
    assertThat(weaving.seen).containsExactly("io/kubernetes/client/informer/cache/ProcessorListener");
    assertThat(registered).as("the weaving is the gate's, not a second transformer of the JVM's").isEmpty();
  }

  @Test
  void everythingElseGoesByUnchangedUntilTheWeavingIsThere() throws Exception {
    StartGate gate = new StartGate();
    byte[] aClass = classFile(StartGate.class);
    byte[] anInterface = classFile(Runnable.class);
    assertThat(load(gate, "com/example/MyHandler", aClass).get(10, TimeUnit.SECONDS)).isNull();
    assertThat(load(gate, "io/kubernetes/client/informer/ResourceEventHandler", anInterface).get(10, TimeUnit.SECONDS)).isNull();
    assertThat(gate.transform(null, null, "io/kubernetes/client/informer/cache/DeltaFIFO", null, null, aClass))
        .as("the boot loader holds no client-java")
        .isNull();
    assertThat(gate.transform(null, LOADER, "io/kubernetes/client/informer/cache/DeltaFIFO", StartGate.class, null, aClass))
        .as("a retransformation (the weaving's own, among others) never waits")
        .isNull();
  }

  @Test
  void theStartThreadNeverWaitsForItself() throws Exception {
    StartGate gate = new StartGate();
    gate.startedBy(Thread.currentThread());
    assertThat(gate.transform(null, LOADER, "io/kubernetes/client/informer/cache/DeltaFIFO", null, null, classFile(StartGate.class)))
        .isNull();
  }

  @Test
  void onceTheWeavingIsThereEveryClassGoesToIt() throws Exception {
    StartGate gate = new StartGate();
    RecordingWeaving weaving = new RecordingWeaving();
    gate.delegatingTo(jvm(new ArrayList<>())).addTransformer(weaving, true);
    assertThat(load(gate, "com/example/MyHandler", classFile(StartGate.class)).get(10, TimeUnit.SECONDS)).isSameAs(WOVEN);
    gate.open();
    assertThat(load(gate, "io/kubernetes/client/informer/cache/DeltaFIFO", classFile(StartGate.class)).get(10, TimeUnit.SECONDS))
        .isSameAs(WOVEN);
    assertThat(weaving.seen).containsExactly("com/example/MyHandler", "io/kubernetes/client/informer/cache/DeltaFIFO");
  }

  @Test
  void aFailedStartOpensTheGateAndClassesLoadUnwoven() throws Exception {
    StartGate gate = new StartGate();
    CompletableFuture<byte[]> informer = load(gate, "io/kubernetes/client/informer/impl/DefaultSharedIndexInformer", classFile(StartGate.class));
    gate.open();
    assertThat(informer.get(10, TimeUnit.SECONDS)).isNull();
    assertThat(gate.isOpen()).isTrue();
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
