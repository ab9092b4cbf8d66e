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
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/**
 * The start gate makes exactly the classes the units weave by name wait for the weaving: the real
 * weaving is run over every class of client-java, client-java-extended, fabric8's client and JOSDK,
 * and what it weaves that is no handler must be {@link StartGate#WOVEN_BY_NAME}, all of it.
 */
class WovenByNameTest {

  private static final ClassLoader LOADER = WovenByNameTest.class.getClassLoader();

  private static Path jarOf(Class<?> type) throws Exception {
    return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
  }

  @Test
  void theGatesListIsWhatTheUnitsWeaveByName() throws Exception {
    List<ClassFileTransformer> registered = new ArrayList<>();
    Weaving.install(
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
    ClassFileTransformer weaving = registered.get(0);

    Set<String> wovenByName = new TreeSet<>();
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
          if (weaving.transform(LOADER.getUnnamedModule(), LOADER, name, null, null, bytes) != null
              && !Weaving.reachesHandler(Class.forName(name.replace('/', '.'), false, LOADER))) {
            wovenByName.add(name);
          }
        }
      }
    }
    // fabric8's other HTTP clients are not on this class path: the gate holds them by the unit's list
    Set<String> otherHttpClients = new TreeSet<>();
    for (String client : dev.resyncmeter.agent.fabric8.request.Fabric8RequestInstrumentation.HTTP_CLIENTS) {
      if (!client.equals(io.fabric8.kubernetes.client.vertx.VertxHttpClient.class.getName())) {
        otherHttpClients.add(client.replace('.', '/'));
      }
    }
    wovenByName.addAll(otherHttpClients);
    assertThat(wovenByName).containsExactlyInAnyOrderElementsOf(StartGate.WOVEN_BY_NAME);
    for (InstrumentationUnit unit : Weaving.allUnits()) {
      assertThat(unit.unitSwitch().isOff()).as(unit.name() + " switched off").isFalse();
    }
  }

  @Test
  void theStartLineNamesTheUnits() {
    for (Library library : Library.values()) {
      List<String> names = new ArrayList<>();
      for (InstrumentationUnit unit : Weaving.UNITS.get(library)) {
        names.add(unit.name());
      }
      assertThat(library.units()).as(library.displayName()).isEqualTo(names);
    }
  }
}
