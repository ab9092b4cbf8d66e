package dev.resyncmeter.agent.weaving;

import dev.resyncmeter.agent.api.Library;
import dev.resyncmeter.agent.api.Part;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Matches a type whose name starts with one of the prefixes; reads nothing but the name. */
final class NamePrefixes {
  private final Set<String> except;
  private final String[] prefixes;

  NamePrefixes(Set<String> except, String... prefixes) {
    this.except = Set.copyOf(except);
    this.prefixes = prefixes;
  }

  /**
   * The classes no unit of {@code parts} could match, told by name alone, so without reading a class
   * file: the JDK's, the agent's own, the packages each library declares free of handlers (generated API and model classes,
   * its own dependencies), and libraries that never hold an informer's handler; but never a class a
   * part weaves by name. Not client-java's informer, util or extended packages, no framework that
   * builds on client-java (Spring Cloud Kubernetes has handlers), and nothing of the host's own.
   */
  static NamePrefixes ignoredBy(List<Part> parts) {
    List<String> prefixes =
        new ArrayList<>(
            List.of(
                "java.",
                "javax.",
                "jdk.",
                "sun.",
                "com.sun.",
                "dev.resyncmeter.agent.",
                "dev.resyncmeter.collector.",
                // other libraries a controller's class path often holds
                "net.bytebuddy.",
                "io.micrometer.",
                "com.google.common.",
                "com.google.errorprone.",
                "com.google.thirdparty.",
                "org.checkerframework.",
                "org.jetbrains.annotations.",
                "jakarta.",
                "ch.qos.logback.",
                "org.apache.logging.log4j.",
                "io.netty.",
                "io.vertx.",
                "tools.jackson.",
                "scala.",
                "groovy.",
                "org.codehaus.groovy."));
    for (Library library : Library.of(parts)) {
      for (String prefix : library.ignoredPackages()) {
        if (!prefixes.contains(prefix)) {
          prefixes.add(prefix);
        }
      }
    }
    NamePrefixes ignored = new NamePrefixes(Set.of(), prefixes.toArray(new String[0]));
    // the classes of these packages that a part weaves by name: client-java's API client and OkHttp's call
    Set<String> except = new HashSet<>();
    for (Part part : parts) {
      for (String name : part.wovenByName()) {
        if (ignored.startsWithAny(name)) {
          except.add(name);
        }
      }
    }
    return new NamePrefixes(except, prefixes.toArray(new String[0]));
  }

  boolean ignores(String name) {
    return !except.contains(name) && startsWithAny(name);
  }

  boolean startsWithAny(String name) {
    for (String prefix : prefixes) {
      if (name.startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public String toString() {
    return "nameStartsWithAnyOf(" + String.join(", ", prefixes) + ") except " + except;
  }
}
