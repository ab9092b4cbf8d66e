package dev.resyncmeter.agent.clientjava;

import java.io.InputStream;
import java.net.URL;
import java.util.Properties;

/** The client-java version a class loader sees, from the Maven metadata inside its jar. */
public final class ClientJavaVersion {

  static final String POM_PROPERTIES = "META-INF/maven/io.kubernetes/client-java/pom.properties";

  private ClientJavaVersion() {}

  /** The version, or null when client-java is not visible to {@code loader}. */
  public static String of(ClassLoader loader) {
    if (loader == null || loader.getResource("io/kubernetes/client/informer/SharedInformerFactory.class") == null) {
      return null;
    }
    URL pom = loader.getResource(POM_PROPERTIES);
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
