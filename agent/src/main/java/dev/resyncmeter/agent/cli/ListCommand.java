package dev.resyncmeter.agent.cli;

import java.io.PrintStream;
import java.util.ArrayList;
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
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("PID", "JAVA", "RESYNC-METER", "MAIN CLASS"));
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
      rows.add(List.of(jvm.pid(), java, agent, jvm.mainClass()));
    }
    out.print(table(rows));
    if (jvms.isEmpty()) {
      out.println("(no other JVM of this user accepts attach)");
    }
    return 0;
  }

  /** The rows in columns as wide as their widest value, two spaces apart; the last column unpadded. */
  static String table(List<List<String>> rows) {
    int[] widths = new int[rows.get(0).size()];
    for (List<String> row : rows) {
      for (int i = 0; i < row.size(); i++) {
        widths[i] = Math.max(widths[i], row.get(i).length());
      }
    }
    StringBuilder out = new StringBuilder();
    for (List<String> row : rows) {
      for (int i = 0; i < row.size() - 1; i++) {
        out.append(row.get(i)).append(" ".repeat(widths[i] - row.get(i).length() + 2));
      }
      out.append(row.get(row.size() - 1)).append('\n');
    }
    return out.toString();
  }
}
