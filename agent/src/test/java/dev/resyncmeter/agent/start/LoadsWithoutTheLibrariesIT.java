package dev.resyncmeter.agent.start;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.Test;

/**
 * The rule for every class of the agent's own: it loads, links and verifies in a class loader that
 * holds only the JDK and the agent jar. The agent lives in the system class loader; a Quarkus
 * fast-jar or a Spring Boot jar loads the instrumented libraries in a child loader the agent's classes
 * cannot see. An advice class that names a library type where the verifier or ByteBuddy must resolve
 * it (a parameter's type, one library type assigned to another) then fails to weave and switches its
 * part off in exactly those hosts.
 *
 * <p>Each class of the built jar (its shaded libraries aside) is loaded without initialisation and
 * its members read by reflection, which links and verifies it; each advice class is also handed to
 * the jar's own ByteBuddy as {@code Advice.to} does when the agent weaves, which reads its methods,
 * their parameters and annotations.
 */
class LoadsWithoutTheLibrariesIT {

  private static final Path JAR = Path.of("target", "resync-meter-agent.jar");
  private static final String SHADED = "dev/resyncmeter/agent/shaded/";
  private static final String BYTEBUDDY = "dev.resyncmeter.agent.shaded.bytebuddy.";

  @Test
  void everyClassOfTheAgentLinksAndVerifiesBesideOnlyTheJdk() throws Exception {
    List<String> failures = new ArrayList<>();
    int checked = 0;
    try (URLClassLoader jdkAndAgent = new URLClassLoader(new URL[] {JAR.toUri().toURL()}, ClassLoader.getPlatformClassLoader())) {
      for (String name : ownClasses()) {
        checked++;
        try {
          Class<?> type = Class.forName(name, false, jdkAndAgent);
          type.getDeclaredMethods();
          type.getDeclaredFields();
          type.getDeclaredConstructors();
        } catch (LinkageError | ClassNotFoundException e) {
          failures.add(name + ": " + e);
        }
      }
    }
    assertThat(checked).as("classes checked").isGreaterThan(100);
    assertThat(failures).as("classes that need an instrumented library to load").isEmpty();
  }

  @Test
  void byteBuddyReadsEveryAdviceClassBesideOnlyTheJdk() throws Exception {
    List<String> failures = new ArrayList<>();
    int advices = 0;
    try (URLClassLoader jdkAndAgent = new URLClassLoader(new URL[] {JAR.toUri().toURL()}, ClassLoader.getPlatformClassLoader())) {
      Method adviceTo = jdkAndAgent.loadClass(BYTEBUDDY + "asm.Advice").getMethod("to", Class.class);
      List<Class<? extends Annotation>> markers = List.of(annotation(jdkAndAgent, "OnMethodEnter"), annotation(jdkAndAgent, "OnMethodExit"));
      for (String name : ownClasses()) {
        Class<?> type;
        try {
          type = Class.forName(name, false, jdkAndAgent);
          if (!isAdvice(type, markers)) {
            continue;
          }
        } catch (LinkageError e) {
          failures.add(name + ": its methods cannot be read: " + e);
          continue;
        }
        advices++;
        try {
          adviceTo.invoke(null, type);
        } catch (java.lang.reflect.InvocationTargetException e) {
          failures.add(name + ": " + e.getCause());
        }
      }
    }
    // client-java's informer, queue, controller and requests, fabric8's informer and requests, JOSDK
    assertThat(advices).as("advice classes found").isGreaterThan(30);
    assertThat(failures).as("advice classes ByteBuddy cannot read without the libraries").isEmpty();
  }

  @SuppressWarnings("unchecked")
  private static Class<? extends Annotation> annotation(ClassLoader loader, String name) throws ClassNotFoundException {
    return (Class<? extends Annotation>) loader.loadClass(BYTEBUDDY + "asm.Advice$" + name);
  }

  private static boolean isAdvice(Class<?> type, List<Class<? extends Annotation>> markers) {
    for (Method method : type.getDeclaredMethods()) {
      for (Class<? extends Annotation> marker : markers) {
        if (method.isAnnotationPresent(marker)) {
          return true;
        }
      }
    }
    return false;
  }

  /** The agent's and the collector's classes in the built jar, by binary name. */
  private static List<String> ownClasses() throws IOException {
    assertThat(Files.isRegularFile(JAR)).as(JAR + " is built by `mvn package`").isTrue();
    try (JarFile jar = new JarFile(JAR.toFile())) {
      return Collections.list(jar.entries()).stream()
          .map(ZipEntry::getName)
          .filter(entry -> entry.endsWith(".class") && entry.startsWith("dev/resyncmeter/") && !entry.startsWith(SHADED))
          .map(entry -> entry.substring(0, entry.length() - ".class".length()).replace('/', '.'))
          .toList();
    }
  }
}
