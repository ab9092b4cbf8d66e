package dev.resyncmeter.agent.start;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The agent's settings from {@code -javaagent:resync-meter-agent.jar[=key=value,...]} and from
 * {@code RESYNC_METER_*} environment variables; an argument wins over its variable. Parsing never
 * fails: each bad piece becomes one problem line and its key keeps the default. {@code disable} takes
 * several part names, joined with {@code +} (a comma already ends the argument); its variable takes
 * commas too.
 */
public final class AgentArguments {

  public static final String DEFAULT_HOST = "0.0.0.0";
  public static final int DEFAULT_PORT = 9464;
  static final List<String> KEYS = List.of("host", "port", "disable", "tls-cert", "tls-key", "tls-client-ca", "basic-auth-user", "basic-auth-password-file");
  /** Asked for by name, and refused: a password on a command line is read by anyone who lists processes. */
  private static final String PASSWORD_ON_THE_COMMAND_LINE = "basic-auth-password";

  private String host = DEFAULT_HOST;
  private int port = DEFAULT_PORT;
  private Set<String> disabled = Set.of();
  private String tlsCertificate;
  private String tlsKey;
  private String tlsClientCa;
  private String basicAuthUser;
  private String basicAuthPasswordFile;
  /** What was wrong with a bad piece, and what the agent does instead. */
  private record Problem(String whatWasWrong, String whatInstead) {}

  private final List<Problem> problems = new ArrayList<>();

  private AgentArguments() {}

  public static AgentArguments parse(String agentArgs, Map<String, String> environment) {
    AgentArguments result = new AgentArguments();
    for (String key : KEYS) {
      String variable = "RESYNC_METER_" + key.toUpperCase(Locale.ROOT).replace('-', '_');
      String value = environment.get(variable);
      if (value != null) {
        result.set(key, value, "environment variable " + variable);
      }
    }
    if (agentArgs != null && !agentArgs.isEmpty()) {
      result.parseAgentArgs(agentArgs);
    }
    return result;
  }

  private void parseAgentArgs(String agentArgs) {
    String[] pieces = agentArgs.split(",", -1);
    for (String piece : pieces) {
      String trimmed = piece.trim();
      if (trimmed.isEmpty()) {
        problem("empty agent argument (stray ',') in '" + printable(agentArgs) + "'", "ignored");
        continue;
      }
      int eq = trimmed.indexOf('=');
      if (eq <= 0) {
        // disable=a,b: the comma ended the argument, and b came alone
        String partsHint = eq < 0 && Parts.components().contains(trimmed.toLowerCase(Locale.ROOT)) ? " (parts to disable are joined with '+': disable=a+b)" : "";
        problem("malformed agent argument '" + printable(trimmed) + "': expected key=value with key one of " + KEYS + partsHint, "ignored");
        continue;
      }
      String key = trimmed.substring(0, eq).trim().toLowerCase(Locale.ROOT);
      String value = trimmed.substring(eq + 1).trim();
      if (key.equals(PASSWORD_ON_THE_COMMAND_LINE)) {
        problem(
            "agent argument " + PASSWORD_ON_THE_COMMAND_LINE + " is not taken: a password on a command line is read by anyone who can list processes; put it in a file and give basic-auth-password-file",
            "ignored");
        continue;
      }
      if (!KEYS.contains(key)) {
        problem("unknown agent argument '" + printable(trimmed.substring(0, eq).trim()) + "' (known: " + String.join(", ", KEYS) + ")", "ignored");
        continue;
      }
      set(key, value, "agent argument " + key);
    }
  }

  private void set(String key, String value, String source) {
    switch (key) {
      case "host" -> {
        if (value.isEmpty() || !allHostChars(value)) {
          problem("bad value for " + source + " '" + printable(value) + "': expected a host name or IP address", "using " + host);
        } else {
          host = value;
        }
      }
      case "port" -> {
        Integer parsed = parsePort(value);
        if (parsed == null) {
          problem("bad value for " + source + " '" + printable(value) + "': expected a port number from 0 to 65535 (0 picks a free port)", "using " + port);
        } else {
          port = parsed;
        }
      }
      case "disable" -> disabled = partNames(value, source);
      case "tls-cert" -> tlsCertificate = path(value, source);
      case "tls-key" -> tlsKey = path(value, source);
      case "tls-client-ca" -> tlsClientCa = path(value, source);
      case "basic-auth-user" -> basicAuthUser = value.isEmpty() ? null : value;
      case "basic-auth-password-file" -> basicAuthPasswordFile = path(value, source);
      default -> throw new IllegalStateException("unhandled key " + key);
    }
  }

  /**
   * The part names in {@code value}, joined with {@code +} or {@code ,}; each unknown name is one
   * problem, and the others count. An empty value disables nothing (an argument {@code disable=}
   * overrides its variable).
   */
  private Set<String> partNames(String value, String source) {
    Set<String> names = new LinkedHashSet<>();
    for (String piece : value.split("[+,]", -1)) {
      String name = piece.trim().toLowerCase(Locale.ROOT);
      if (name.isEmpty()) {
        continue;
      }
      if (Parts.components().contains(name)) {
        names.add(name);
      } else {
        problem("unknown part '" + printable(piece.trim()) + "' in " + source + " (parts: " + String.join(", ", Parts.components()) + ")", "ignored");
      }
    }
    return Set.copyOf(names);
  }

  /** A file's path, or null for an empty value (which overrides its variable). */
  private String path(String value, String source) {
    for (int i = 0; i < value.length(); i++) {
      if (value.charAt(i) < 0x20) {
        problem("bad value for " + source + " '" + printable(value) + "': expected a file's path", "not set");
        return null;
      }
    }
    return value.isEmpty() ? null : value;
  }

  private static Integer parsePort(String value) {
    if (value.isEmpty() || value.length() > 5) {
      return null;
    }
    for (int i = 0; i < value.length(); i++) {
      if (value.charAt(i) < '0' || value.charAt(i) > '9') {
        return null;
      }
    }
    int port = Integer.parseInt(value);
    return port <= 65535 ? port : null;
  }

  // Loops rather than streams here: this runs before the host's main, and a first lambda costs it the
  // lambda machinery's start.
  private static boolean allHostChars(String value) {
    for (int i = 0; i < value.length(); i++) {
      if (!isHostChar(value.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  private static boolean isHostChar(int c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
        || c == '.' || c == '-' || c == ':' || c == '_' || c == '[' || c == ']' || c == '%';
  }

  /** Keeps a problem line on one line and readable whatever bytes the argument held. */
  static String printable(String value) {
    StringBuilder out = new StringBuilder();
    value.codePoints()
        .limit(80)
        .forEach(
            c -> {
              if (c >= 0x20 && c < 0x7f) {
                out.appendCodePoint(c);
              } else {
                out.append(String.format("\\u%04x", c & 0xffff));
              }
            });
    if (value.codePointCount(0, value.length()) > 80) {
      out.append("...");
    }
    return out.toString();
  }

  public String host() {
    return host;
  }

  public int port() {
    return port;
  }

  /**
   * What the endpoint asks of clients, as given: {@code tls-cert}, {@code tls-key} and {@code
   * tls-client-ca} (PEM files), {@code basic-auth-user} and {@code basic-auth-password-file}; each
   * null when not set.
   */
  public record EndpointSettings(String tlsCertificate, String tlsKey, String tlsClientCa, String basicAuthUser, String basicAuthPasswordFile) {

    /** Whether any of them is set: plain HTTP for anyone otherwise. */
    public boolean any() {
      return tlsCertificate != null || tlsKey != null || tlsClientCa != null || basicAuthUser != null || basicAuthPasswordFile != null;
    }
  }

  public EndpointSettings endpoint() {
    return new EndpointSettings(tlsCertificate, tlsKey, tlsClientCa, basicAuthUser, basicAuthPasswordFile);
  }

  /** The component names of the parts not to weave ({@code clientjava-workqueue}). */
  public Set<String> disabled() {
    return disabled;
  }

  /**
   * One problem per bad piece; the same problem twice (two stray commas, one bad value given twice)
   * is one line: the second says nothing new.
   */
  private void problem(String whatWasWrong, String whatInstead) {
    for (Problem known : problems) {
      if (known.whatWasWrong().equals(whatWasWrong)) {
        return;
      }
    }
    problems.add(new Problem(whatWasWrong, whatInstead));
  }

  /** One line each: what was wrong and what the agent does instead. */
  public List<String> problems() {
    // plain loops: premain reads this, and a first lambda would cost the host's start milliseconds
    List<String> lines = new ArrayList<>();
    for (Problem problem : problems) {
      lines.add(problem.whatWasWrong() + "; " + problem.whatInstead());
    }
    return lines;
  }

  /**
   * One line each: what was wrong, without what the agent would do instead; for the attach command,
   * which loads nothing when anything was wrong.
   */
  public List<String> whatWasWrong() {
    List<String> lines = new ArrayList<>();
    for (Problem problem : problems) {
      lines.add(problem.whatWasWrong());
    }
    return lines;
  }
}
