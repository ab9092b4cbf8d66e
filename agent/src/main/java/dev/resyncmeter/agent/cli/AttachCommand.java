package dev.resyncmeter.agent.cli;

import dev.resyncmeter.agent.start.AgentArguments;
import dev.resyncmeter.agent.start.ResyncMeterAgent;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * {@code attach <pid | part of the main class name> [agent arguments]}: loads this jar as an agent
 * into a running JVM of Java 17 or later, once. Exit code 0 when the agent runs there and serves its
 * endpoint; 1 when it could not be loaded or did not start there (with the reason in one line: its
 * port in use there, say; the agent then stays out and a corrected attach works); 2 for a bad command
 * line, bad agent arguments included: those are checked with the agent's own parser, as
 * {@code -javaagent} would, before anything is loaded (the target's {@code RESYNC_METER_*} variables
 * are the target's, read by the agent there).
 */
final class AttachCommand {

  static final String USAGE =
      "usage: java -jar resync-meter-agent.jar attach <pid | part of the main class name> [agent arguments, e.g. port=9500]\n"
          + "exit code 0: attached and serving; 1: not attached (the reason is printed); 2: bad command line or agent arguments, nothing loaded";

  private AttachCommand() {}

  static int run(String[] args, PrintStream out, PrintStream err) {
    if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
      out.println(USAGE);
      return 0;
    }
    if (args.length < 1 || args.length > 2 || args[0].isBlank()) {
      err.println("resync-meter attach: " + (args.length == 0 ? "which JVM? give its pid or part of its main class name" : "too many arguments"));
      err.println(USAGE);
      return 2;
    }
    List<String> wrong = AgentArguments.parse(args.length == 2 ? args[1] : null, Map.of()).whatWasWrong();
    if (!wrong.isEmpty()) {
      for (String line : wrong) {
        err.println("resync-meter attach: " + line + "; nothing was loaded");
      }
      return 2;
    }
    if (!Jvms.attachModulePresent()) {
      err.println("resync-meter attach: this Java runtime has no attach module (jdk.attach): run the command with a JDK's java, not a JRE's");
      return 1;
    }
    try {
      Jvms.Jvm target = target(args[0]);
      try (Jvms.Session session = Jvms.Session.of(target.pid())) {
        Properties properties = session.properties();
        int feature = featureVersion(properties.getProperty("java.specification.version", "0"));
        if (feature < 17) {
          throw new Jvms.AttachFailure(describe(target) + " runs Java " + properties.getProperty("java.specification.version") + "; the agent needs Java 17 or later");
        }
        String running = properties.getProperty(Jvms.VERSION_PROPERTY);
        if (running != null) {
          throw new Jvms.AttachFailure(
              describe(target) + " already runs resync-meter " + running + " (" + properties.getProperty(Jvms.ENDPOINT_PROPERTY, "no endpoint")
                  + "): not attaching a second one");
        }
        session.load(ownJar(), args.length == 2 ? args[1] : null);
        String endpoint = session.properties().getProperty(Jvms.ENDPOINT_PROPERTY);
        if (endpoint == null || !endpoint.startsWith(ResyncMeterAgent.SERVING)) {
          throw new Jvms.AttachFailure(
              "the agent did not start in " + describe(target) + ": "
                  + (endpoint == null ? "see its stderr" : endpoint.substring(endpoint.startsWith(ResyncMeterAgent.NOT_STARTED) ? ResyncMeterAgent.NOT_STARTED.length() : 0))
                  + "; it runs as it did, attach again with other agent arguments");
        }
        out.println("resync-meter attached to " + describe(target) + ": " + endpoint + "; counting starts now");
        if (feature >= 21) {
          out.println("(Java " + feature + " prints a warning on its stderr for a dynamically loaded agent; -XX:+EnableDynamicAgentLoading silences it)");
        }
      }
      return 0;
    } catch (Jvms.AttachFailure e) {
      err.println("resync-meter attach: " + e.getMessage());
      return 1;
    }
  }

  /** A pid, or the one JVM whose main class contains the text. */
  static Jvms.Jvm target(String pidOrName) throws Jvms.AttachFailure {
    List<Jvms.Jvm> jvms = Jvms.list();
    if (pidOrName.chars().allMatch(Character::isDigit)) {
      if (ProcessHandle.of(Long.parseLong(pidOrName)).isEmpty()) {
        throw new Jvms.AttachFailure("no process with pid " + pidOrName);
      }
      if (pidOrName.equals(Long.toString(ProcessHandle.current().pid()))) {
        throw new Jvms.AttachFailure(pidOrName + " is this command's own JVM");
      }
      return jvms.stream().filter(j -> j.pid().equals(pidOrName)).findFirst().orElse(new Jvms.Jvm(pidOrName, "(not listed)"));
    }
    List<Jvms.Jvm> matches = jvms.stream().filter(j -> j.mainClass().contains(pidOrName)).toList();
    if (matches.isEmpty()) {
      throw new Jvms.AttachFailure("no JVM of this user has a main class containing '" + pidOrName + "' (list shows those there are)");
    }
    if (matches.size() > 1) {
      StringBuilder which = new StringBuilder();
      for (Jvms.Jvm jvm : matches) {
        which.append(which.length() == 0 ? "" : ", ").append(describe(jvm));
      }
      throw new Jvms.AttachFailure("'" + pidOrName + "' matches " + matches.size() + " JVMs: " + which + "; give the pid");
    }
    return matches.get(0);
  }

  static int featureVersion(String specificationVersion) {
    String[] parts = specificationVersion.split("\\.");
    try {
      return Integer.parseInt(parts[0].equals("1") && parts.length > 1 ? parts[1] : parts[0]);
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private static String describe(Jvms.Jvm jvm) {
    return jvm.pid() + " (" + jvm.mainClass() + ")";
  }

  private static String ownJar() throws Jvms.AttachFailure {
    try {
      return Path.of(AttachCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toAbsolutePath().toString();
    } catch (Exception e) {
      throw new Jvms.AttachFailure("cannot tell where this agent jar is: " + e.getMessage());
    }
  }
}
