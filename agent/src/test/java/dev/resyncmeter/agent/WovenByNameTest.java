package dev.resyncmeter.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.informers.impl.DefaultSharedIndexInformer;
import io.javaoperatorsdk.operator.processing.event.EventProcessor;
import io.kubernetes.client.extended.workqueue.DefaultWorkQueue;
import io.kubernetes.client.informer.ResourceEventHandler;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/**
 * Each part's list of classes woven by name is exactly what its weaving weaves that is no handler, so
 * the start gate holds back exactly those: the real weaving is run over every class of client-java,
 * client-java-extended, fabric8's client and JOSDK, first of every part together, then of each part
 * alone over what they wove.
 */
class WovenByNameTest {

  private static final ClassLoader LOADER = WovenByNameTest.class.getClassLoader();

  private static Path jarOf(Class<?> type) throws Exception {
    return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
  }

  /** The transformer that the weaving of {@code parts} installs. */
  private static ClassFileTransformer weavingOf(List<Part> parts) throws Exception {
    List<ClassFileTransformer> registered = new ArrayList<>();
    new Weaving(parts, "test")
        .install(
            (Instrumentation)
                Proxy.newProxyInstance(
                    LOADER,
                    new Class<?>[] {Instrumentation.class},
                    (proxy, method, args) -> {
                      switch (method.getName()) {
                        case "addTransformer" -> registered.add((ClassFileTransformer) args[0]);
                        case "isRetransformClassesSupported" -> {
                          return true;
                        }
                        case "getAllLoadedClasses" -> {
                          return new Class<?>[0];
                        }
                        default -> {
                          // nothing else is needed to install
                        }
                      }
                      return method.getReturnType() == boolean.class ? false : null;
                    }),
            false);
    return registered.get(0);
  }

  private static boolean weaves(ClassFileTransformer weaving, String name, byte[] bytes) throws Exception {
    return weaving.transform(LOADER.getUnnamedModule(), LOADER, name, null, null, bytes) != null;
  }

  @Test
  void eachPartsListIsWhatItsWeavingWeavesByName() throws Exception {
    Weaving all = new Weaving(Parts.ALL, "test");
    ClassFileTransformer weaving = weavingOf(Parts.ALL);
    Map<String, byte[]> wovenByName = new TreeMap<>();
    List<Path> jars =
        List.of(
            jarOf(ResourceEventHandler.class),
            jarOf(DefaultWorkQueue.class),
            jarOf(DefaultSharedIndexInformer.class),
            jarOf(EventProcessor.class),
            jarOf(io.kubernetes.client.openapi.ApiClient.class),
            jarOf(okhttp3.OkHttpClient.class),
            jarOf(io.fabric8.kubernetes.client.vertx.VertxHttpClient.class));
    for (Path jar : jars) {
      try (JarFile file = new JarFile(jar.toFile())) {
        for (Enumeration<JarEntry> entries = file.entries(); entries.hasMoreElements(); ) {
          String entry = entries.nextElement().getName();
          if (!entry.endsWith(".class") || entry.contains("-")) {
            continue;
          }
          String name = entry.substring(0, entry.length() - ".class".length());
          byte[] bytes = file.getInputStream(file.getJarEntry(entry)).readAllBytes();
          if (weaves(weaving, name, bytes) && !all.reachesHandler(Class.forName(name.replace('/', '.'), false, LOADER))) {
            wovenByName.put(name, bytes);
          }
        }
      }
    }
    // fabric8's other HTTP clients are not on this class path: the gate holds them by the part's list
    Set<String> notHere = new TreeSet<>();
    for (String listed : Parts.wovenByName(Parts.ALL)) {
      if (LOADER.getResource(listed + ".class") == null) {
        notHere.add(listed);
      }
    }
    assertThat(notHere)
        .containsExactlyInAnyOrder(
            "io/fabric8/kubernetes/client/jdkhttp/JdkHttpClientImpl",
            "io/fabric8/kubernetes/client/okhttp/OkHttpClientImpl",
            "io/fabric8/kubernetes/client/vertx5/Vertx5HttpClient",
            "io/fabric8/kubernetes/client/jetty/JettyHttpClient");
    Set<String> expected = new TreeSet<>(wovenByName.keySet());
    expected.addAll(notHere);
    assertThat(expected).containsExactlyInAnyOrderElementsOf(Parts.wovenByName(Parts.ALL));

    for (Part part : Parts.ALL) {
      ClassFileTransformer alone = weavingOf(List.of(part));
      Set<String> itWeaves = new TreeSet<>();
      for (Map.Entry<String, byte[]> type : wovenByName.entrySet()) {
        if (weaves(alone, type.getKey(), type.getValue())) {
          itWeaves.add(type.getKey());
        }
      }
      Set<String> listed = new TreeSet<>(Parts.wovenByName(List.of(part)));
      listed.removeAll(notHere);
      assertThat(itWeaves).as(part + " weaves by name").containsExactlyInAnyOrderElementsOf(listed);
    }
    for (Part part : Parts.ALL) {
      assertThat(part.unitSwitch().isOff()).as(part + " switched off").isFalse();
    }
  }
}
