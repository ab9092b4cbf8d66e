package dev.resyncmeter.agent.cli;

import java.io.PrintStream;
import java.util.List;
import java.util.Properties;

/** {@code list}: the JVMs of this user that accept attach, and whether resync-meter runs in each. */
final class ListCommand {

  private ListCommand() {}

  static int run(String[] args, PrintStream out, PrintStream err) {
    if (args.length > 0) {
      err.println("resync-meter list: takes no arguments");
      return 2;
    }
    if (!Jvms.attachModulePresent()) {
      err.println("resync-meter list: this Java runtime has no attach module (jdk.attach): run the command with a JDK's java, not a JRE's");
      return 1;
    }
    List<Jvms.Jvm> jvms = Jvms.list();
    out.printf("%-8s %-7s %-30s %s%n", "PID", "JAVA", "RESYNC-METER", "MAIN CLASS");
    for (Jvms.Jvm jvm : jvms) {
      String java;
      String agent;
      try {
        Properties properties = Jvms.properties(jvm.pid());
        java = properties.getProperty("java.specification.version", "?");
        String version = properties.getProperty(Jvms.VERSION_PROPERTY);
        agent = version == null ? "no" : version + " " + properties.getProperty(Jvms.ENDPOINT_PROPERTY, "");
      } catch (Jvms.AttachFailure e) {
        java = "?";
        agent = "? (cannot attach)";
      }
      out.printf("%-8s %-7s %-30s %s%n", jvm.pid(), java, agent, jvm.mainClass());
    }
    if (jvms.isEmpty()) {
      out.println("(no other JVM of this user accepts attach)");
    }
    return 0;
  }
}
