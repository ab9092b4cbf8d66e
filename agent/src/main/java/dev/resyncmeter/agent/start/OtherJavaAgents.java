package dev.resyncmeter.agent.start;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Whether this JVM runs another Java agent beside this one, read from its command line: beside one,
 * the agent starts on the host's main thread rather than its own (see {@link ResyncMeterAgent}).
 */
final class OtherJavaAgents {

  private OtherJavaAgents() {}

  /**
   * Whether the JVM was given another Java agent: a {@code -javaagent} of another jar on the command
   * line or in the variables the JVM and launcher read. When that cannot be told (no command line, an
   * argument file), the answer is yes: the careful way.
   */
  static boolean present() {
    try {
      List<String> commandLine = commandLine();
      if (commandLine == null) {
        return true;
      }
      List<String> options = new ArrayList<>(commandLine);
      for (String variable : new String[] {"JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS"}) {
        String value = System.getenv(variable);
        if (value != null) {
          options.addAll(List.of(value.trim().split("\\s+")));
        }
      }
      Path own = Path.of(ResyncMeterAgent.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      return otherJavaAgentIn(options, own);
    } catch (Throwable cannotTell) {
      return true;
    }
  }

  /**
   * This JVM's command line, its options among it, or null when it cannot be read. On Linux from
   * {@code /proc/self/cmdline}, whole: the JDK's {@code ProcessHandle.Info} reads only its first 4096
   * bytes and then gives no arguments at all, which a long class path makes the common case.
   */
  static List<String> commandLine() {
    try {
      byte[] bytes = Files.readAllBytes(Path.of("/proc/self/cmdline"));
      if (bytes.length > 0) {
        List<String> arguments = new ArrayList<>();
        int from = 0;
        for (int i = 0; i < bytes.length; i++) {
          if (bytes[i] == 0) {
            arguments.add(new String(bytes, from, i - from, StandardCharsets.UTF_8));
            from = i + 1;
          }
        }
        if (from < bytes.length) {
          arguments.add(new String(bytes, from, bytes.length - from, StandardCharsets.UTF_8));
        }
        // the first is the launcher itself, as in ProcessHandle's command
        return arguments.subList(1, arguments.size());
      }
    } catch (IOException | RuntimeException notLinux) {
      // read it as the JDK can
    }
    String[] arguments = ProcessHandle.current().info().arguments().orElse(null);
    return arguments == null ? null : List.of(arguments);
  }

  static boolean otherJavaAgentIn(List<String> options, Path ownJar) {
    Path own = ownJar.toAbsolutePath().normalize();
    for (String option : options) {
      if (option.startsWith("@")) {
        return true;
      }
      if (option.startsWith("-javaagent:")) {
        String jar = option.substring("-javaagent:".length());
        int equals = jar.indexOf('=');
        jar = equals < 0 ? jar : jar.substring(0, equals);
        if (!Path.of(jar).toAbsolutePath().normalize().equals(own)) {
          return true;
        }
      }
    }
    return false;
  }
}
