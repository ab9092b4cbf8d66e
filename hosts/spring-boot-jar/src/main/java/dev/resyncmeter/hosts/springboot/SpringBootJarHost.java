package dev.resyncmeter.hosts.springboot;

import dev.resyncmeter.examples.Main;
import io.kubernetes.client.informer.SharedInformerFactory;

/**
 * The examples' command line, started by Spring Boot's launcher from an executable jar. It first
 * says which class loader gave it client-java, so its test knows the agent met a nested-jar loader
 * and not the class path.
 */
public final class SpringBootJarHost {

  private SpringBootJarHost() {}

  public static void main(String[] args) throws Exception {
    ClassLoader loader = SharedInformerFactory.class.getClassLoader();
    System.out.println("host client-java loader " + loader.getClass().getName() + " from " + SharedInformerFactory.class.getProtectionDomain().getCodeSource().getLocation());
    System.out.println("host system class path " + System.getProperty("java.class.path"));
    Main.main(args);
  }
}
