package dev.resyncmeter.agent.api;

import java.io.InputStream;
import java.net.URL;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * A client library the agent instruments: how to tell that a class loader sees it, its version there
 * (from the Maven metadata inside its jar), and the packages of it and of its dependencies that hold
 * no handler, which the weaving ignores by name. Each library is declared in its own folder, with its
 * parts ({@link Part}).
 */
public final class Library {

  /** For people (the start line) and for {@code resync_meter_info{client}}. */
  private final String displayName;
  private final String label;
  private final String probeClass;
  private final String pomProperties;
  private final List<String> ignoredPackages;

  /**
   * {@code probeClass} and {@code pomProperties} are resource names; {@code ignoredPackages} are name
   * prefixes ({@code io.kubernetes.client.openapi.}) of classes none of its parts weaves, except those
   * a part weaves by name.
   */
  public Library(String displayName, String label, String probeClass, String pomProperties, String... ignoredPackages) {
    this.displayName = displayName;
    this.label = label;
    this.probeClass = probeClass;
    this.pomProperties = pomProperties;
    this.ignoredPackages = List.of(ignoredPackages);
  }

  public String displayName() {
    return displayName;
  }

  public String label() {
    return label;
  }

  /** Packages (name prefixes) that hold no class any part weaves, but those woven by name. */
  public List<String> ignoredPackages() {
    return ignoredPackages;
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

  /** The libraries of {@code parts}, in their order. */
  public static List<Library> of(List<Part> parts) {
    List<Library> libraries = new ArrayList<>();
    for (Part part : parts) {
      if (!libraries.contains(part.library())) {
        libraries.add(part.library());
      }
    }
    return libraries;
  }

  @Override
  public String toString() {
    return displayName;
  }
}
