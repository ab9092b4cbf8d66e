package dev.resyncmeter.agent.weaving;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resyncmeter.agent.runtime.TestCollector;
import dev.resyncmeter.agent.start.Parts;
import dev.resyncmeter.collector.ResyncMetrics;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.io.InputStream;
import java.lang.reflect.Constructor;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Started with the JVM, handler calls are measured where the library makes them: in client-java's
 * {@code ProcessorListener.run()} loop and fabric8's {@code ProcessorListener.add}, woven as the agent
 * weaves them, with handlers that are this test's own classes (an anonymous class, and one whose
 * update goes to a lambda) and never woven. A handler that throws is counted once all the same. After
 * an attach, the handler classes are what is selected instead.
 */
class CallSiteWeavingTest {

  private static final ClassLoader LOADER = CallSiteWeavingTest.class.getClassLoader();

  private ResyncMetrics metrics;

  @BeforeEach
  void install() {
    metrics = TestCollector.install();
  }

  @AfterEach
  void uninstall() {
    TestCollector.uninstall();
  }

  /** The library's listener classes, woven now by the agent's weaving as the JVM's start weaves them, in a loader of their own. */
  private static ClassLoader wovenListenerClasses(String prefix) {
    Weaver weaver = new Weaving(Parts.ALL, Parts.ALL, "test").weaver(PrewovenClasses.NONE);
    return new ClassLoader(LOADER) {
      @Override
      protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        if (!name.startsWith(prefix)) {
          return super.loadClass(name, resolve);
        }
        synchronized (getClassLoadingLock(name)) {
          Class<?> loaded = findLoadedClass(name);
          if (loaded != null) {
            return loaded;
          }
          try (InputStream in = LOADER.getResourceAsStream(name.replace('.', '/') + ".class")) {
            byte[] classFile = in.readAllBytes();
            byte[] woven = weaver.transform(this, name.replace('.', '/'), null, null, classFile);
            byte[] bytes = woven == null ? classFile : woven;
            return defineClass(name, bytes, 0, bytes.length);
          } catch (java.io.IOException e) {
            throw new ClassNotFoundException(name, e);
          }
        }
      }
    };
  }

  private static Object make(ClassLoader loader, String name, Object... arguments) throws Exception {
    for (Constructor<?> constructor : loader.loadClass(name).getConstructors()) {
      if (constructor.getParameterCount() == arguments.length) {
        return constructor.newInstance(arguments);
      }
    }
    throw new IllegalArgumentException(name);
  }

  private double count(String series) {
    String scrape = metrics.registry().scrape();
    return scrape
        .lines()
        .filter(line -> line.startsWith(series + " "))
        .mapToDouble(line -> Double.parseDouble(line.substring(series.length() + 1)))
        .findFirst()
        .orElse(0);
  }

  private static V1ConfigMap clientJavaObject(String version) {
    return new V1ConfigMap().metadata(new V1ObjectMeta().name("a").namespace("default").resourceVersion(version));
  }

  /** A client-java handler class of this test's whose update goes to a lambda. */
  static final class UpdatesToLambda implements io.kubernetes.client.informer.ResourceEventHandler<V1ConfigMap> {
    private final BiConsumer<V1ConfigMap, V1ConfigMap> update;

    UpdatesToLambda(BiConsumer<V1ConfigMap, V1ConfigMap> update) {
      this.update = update;
    }

    @Override
    public void onAdd(V1ConfigMap object) {}

    @Override
    public void onUpdate(V1ConfigMap oldObject, V1ConfigMap newObject) {
      update.accept(oldObject, newObject);
    }

    @Override
    public void onDelete(V1ConfigMap object, boolean deletedFinalStateUnknown) {
      throw new IllegalStateException("this handler fails its deletes");
    }
  }

  @Test
  void clientJavasRunLoopCountsEachCallOfAHandlerOfTheApplicationsOwnOnceEvenWhenItThrows() throws Exception {
    String cache = "io.kubernetes.client.informer.cache.";
    ClassLoader loader = wovenListenerClasses(cache + "ProcessorListener");
    int[] updates = new int[1];
    UpdatesToLambda handler = new UpdatesToLambda((o, n) -> updates[0]++);
    Object listener = make(loader, cache + "ProcessorListener", handler, 0L);
    Thread thread = new Thread((Runnable) listener);
    thread.start();
    java.lang.reflect.Method add = listener.getClass().getMethod("add", loader.loadClass(cache + "ProcessorListener$Notification"));
    V1ConfigMap same = clientJavaObject("1");
    add.invoke(listener, make(loader, cache + "ProcessorListener$AddNotification", same));
    add.invoke(listener, make(loader, cache + "ProcessorListener$UpdateNotification", same, clientJavaObject("2")));
    add.invoke(listener, make(loader, cache + "ProcessorListener$UpdateNotification", same, same));
    add.invoke(listener, make(loader, cache + "ProcessorListener$DeleteNotification", same));
    add.invoke(listener, make(loader, cache + "ProcessorListener$UpdateNotification", same, clientJavaObject("3")));
    String label = "handler=\"CallSiteWeavingTest$UpdatesToLambda\",kind=\"unknown\"";
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (count("informer_updates_total{cause=\"watch\"," + label + ",resource_version=\"changed\"}") < 2 && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    thread.interrupt();
    thread.join(10_000);

    assertThat(updates[0]).isEqualTo(3);
    assertThat(count("informer_notifications_total{" + label + ",type=\"add\"}")).isEqualTo(1);
    assertThat(count("informer_notifications_total{" + label + ",type=\"update\"}")).isEqualTo(3);
    assertThat(count("informer_notifications_total{" + label + ",type=\"delete\"}")).as("the delete that threw").isEqualTo(1);
    assertThat(count("informer_updates_total{cause=\"watch\"," + label + ",resource_version=\"changed\"}")).isEqualTo(2);
    assertThat(count("informer_updates_total{cause=\"resync\"," + label + ",resource_version=\"unchanged\"}")).isEqualTo(1);
  }

  @Test
  void fabric8sDeliveryCountsEachCallOfAnAnonymousHandlerOfTheApplicationsOwn() throws Exception {
    String cache = "io.fabric8.kubernetes.client.informers.impl.cache.";
    ClassLoader loader = wovenListenerClasses(cache + "ProcessorListener");
    int[] calls = new int[1];
    io.fabric8.kubernetes.client.informers.ResourceEventHandler<ConfigMap> handler =
        new io.fabric8.kubernetes.client.informers.ResourceEventHandler<>() {
          @Override
          public void onAdd(ConfigMap object) {
            calls[0]++;
          }

          @Override
          public void onUpdate(ConfigMap oldObject, ConfigMap newObject) {
            calls[0]++;
          }

          @Override
          public void onDelete(ConfigMap object, boolean deletedFinalStateUnknown) {
            calls[0]++;
          }
        };
    Object listener = make(loader, cache + "ProcessorListener", handler, 0L);
    java.lang.reflect.Method add = listener.getClass().getMethod("add", loader.loadClass(cache + "ProcessorListener$Notification"));
    ConfigMap same = new ConfigMapBuilder().withNewMetadata().withName("a").withResourceVersion("1").endMetadata().build();
    ConfigMap changed = new ConfigMapBuilder().withNewMetadata().withName("a").withResourceVersion("2").endMetadata().build();
    add.invoke(listener, make(loader, cache + "ProcessorListener$AddNotification", same));
    add.invoke(listener, make(loader, cache + "ProcessorListener$UpdateNotification", same, changed));
    add.invoke(listener, make(loader, cache + "ProcessorListener$UpdateNotification", same, same));
    add.invoke(listener, make(loader, cache + "ProcessorListener$DeleteNotification", same, false));

    // an anonymous class is labelled after the class it is made in
    String label = "handler=\"CallSiteWeavingTest\",kind=\"unknown\"";
    assertThat(calls[0]).isEqualTo(4);
    assertThat(count("informer_notifications_total{" + label + ",type=\"add\"}")).isEqualTo(1);
    assertThat(count("informer_notifications_total{" + label + ",type=\"update\"}")).isEqualTo(2);
    assertThat(count("informer_notifications_total{" + label + ",type=\"delete\"}")).isEqualTo(1);
    assertThat(count("informer_updates_total{cause=\"watch\"," + label + ",resource_version=\"changed\"}")).isEqualTo(1);
    assertThat(count("informer_updates_total{cause=\"resync\"," + label + ",resource_version=\"unchanged\"}")).isEqualTo(1);
  }

  @Test
  void handlerClassesAreSelectedOnlyAfterAnAttach() throws Exception {
    String name = UpdatesToLambda.class.getName();
    byte[] classFile;
    try (InputStream in = LOADER.getResourceAsStream(name.replace('.', '/') + ".class")) {
      classFile = in.readAllBytes();
    }
    assertThat(new Weaving(Parts.ALL, Parts.ALL, "test").weaver(PrewovenClasses.NONE).selecting(LOADER, name, classFile)).isEmpty();
    assertThat(new Weaving(Parts.ALL, Parts.ALL, "test", true).weaver(PrewovenClasses.NONE).selecting(LOADER, name, classFile))
        .extracting(r -> r.id())
        .containsExactly("clientjava-informer");
  }
}
