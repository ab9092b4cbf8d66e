package dev.resyncmeter.agent;

import java.io.InputStream;
import java.net.URL;
import java.util.List;
import java.util.Properties;

/**
 * The client libraries the agent instruments: how to tell that a class loader sees one, and its
 * version there, from the Maven metadata inside its jar.
 */
public enum Library {
  CLIENT_JAVA(
      "client-java",
      "client-java",
      "io/kubernetes/client/informer/SharedInformerFactory.class",
      "META-INF/maven/io.kubernetes/client-java/pom.properties",
      "io.kubernetes.client.informer.",
      "informer", "workqueue", "controller", "requests"),
  FABRIC8(
      "fabric8",
      "fabric8",
      "io/fabric8/kubernetes/client/informers/impl/DefaultSharedIndexInformer.class",
      "META-INF/maven/io.fabric8/kubernetes-client/pom.properties",
      "io.fabric8.kubernetes.client.informers.",
      "informer", "requests"),
  JOSDK(
      "JOSDK",
      "josdk",
      "io/javaoperatorsdk/operator/processing/event/EventProcessor.class",
      "META-INF/maven/io.javaoperatorsdk/operator-framework-core/pom.properties",
      "io.javaoperatorsdk.operator.processing.",
      "reconciler");

  /** For people (the start line) and for {@code resync_meter_info{client}}. */
  private final String displayName;
  private final String label;
  private final String probeClass;
  private final String pomProperties;
  /** A package of the library that the agent weaves: its first woven class tells the version. */
  private final String wovenPackage;
  /** Its instrumentation units' names, for the start line (the units load with ByteBuddy, later). */
  private final List<String> units;

  Library(String displayName, String label, String probeClass, String pomProperties, String wovenPackage, String... units) {
    this.displayName = displayName;
    this.label = label;
    this.probeClass = probeClass;
    this.pomProperties = pomProperties;
    this.wovenPackage = wovenPackage;
    this.units = List.of(units);
  }

  public List<String> units() {
    return units;
  }

  public String displayName() {
    return displayName;
  }

  public String label() {
    return label;
  }

  /** The library whose woven package holds {@code className}, or null. */
  static Library ofWovenClass(String className) {
    for (Library library : values()) {
      if (className.startsWith(library.wovenPackage)) {
        return library;
      }
    }
    return null;
  }

  /** The version, or null when the library is not visible to {@code loader}. */
  public String version(ClassLoader loader) {
    if (loader == null || loader.getResource(probeClass) == null) {
      return null;
    }
    URL pom = loader.getResource(pomProperties);
    if (pom == null) {
      return "unknown";
    }
    try (InputStream in = pom.openStream()) {
      Properties properties = new Properties();
      properties.load(in);
      return properties.getProperty("version", "unknown");
    } catch (Exception e) {
      return "unknown";
    }
  }
}
