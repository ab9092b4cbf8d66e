package dev.resyncmeter.report;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * How the report reaches a server over HTTP, the same for an agent's endpoint ({@code --url}) and for
 * a Prometheus server ({@code --prometheus}): the CA to trust, a client certificate for mutual TLS,
 * and credentials (basic auth with the password from a file, a bearer token from a file, headers).
 * Parsed here once for both; {@link HttpAccess} reads the files and makes the connections.
 */
final class AccessOptions {

  static final Set<String> NAMES = Set.of("--ca-file", "--client-cert", "--client-key", "--user", "--password-file", "--bearer-token-file", "--header");

  static final String USAGE =
      "  ACCESS, how --url or --prometheus is reached: --ca-file PEM trusts the CAs in it (and only those; without it, the\n"
          + "  JDK's); --client-cert PEM --client-key PEM (PKCS#8) for mutual TLS; --user NAME --password-file FILE for basic auth,\n"
          + "  the password read from the file (its line end ignored), never from the command line; --bearer-token-file FILE;\n"
          + "  --header 'Name: value' (repeatable)";

  private static final Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");

  Path caFile;
  Path clientCertificate;
  Path clientKey;
  String user;
  Path passwordFile;
  Path bearerTokenFile;
  final List<String[]> headers = new ArrayList<>();
  private final GivenOptions given = new GivenOptions();

  /**
   * True for an argument that would carry a password on the command line ({@code --password},
   * {@code --password=...}): refused by {@link #refusePassword}, which does not repeat it.
   */
  static boolean isPassword(String argument) {
    String a = argument.toLowerCase(Locale.ROOT);
    return a.equals("--password") || a.startsWith("--password=");
  }

  static UsageException refusePassword() {
    return new UsageException(
        "--password is not taken: a password on a command line is read by anyone who can list processes and stays in the"
            + " shell's history; put it in a file and give --password-file FILE");
  }

  /** Takes the option at {@code args[i]} and its value; the index of the value. */
  int take(String[] args, int i) throws UsageException {
    String option = args[i];
    String value = given.value(args, i);
    switch (option) {
      case "--ca-file" -> caFile = Path.of(value);
      case "--client-cert" -> clientCertificate = Path.of(value);
      case "--client-key" -> clientKey = Path.of(value);
      case "--user" -> user = user(value);
      case "--password-file" -> passwordFile = Path.of(value);
      case "--bearer-token-file" -> bearerTokenFile = Path.of(value);
      case "--header" -> headers.add(header(value));
      default -> throw new IllegalArgumentException(option);
    }
    return i + 1;
  }

  /** The first of these options given, or null when none was. */
  String firstGiven() {
    return given.first();
  }

  /** The options make sense together: the pairs complete, one source of the Authorization header. */
  void check() throws UsageException {
    if (user != null && passwordFile == null) {
      throw new UsageException("--user needs --password-file FILE: the password is read from a file, never from the command line");
    }
    if (passwordFile != null && user == null) {
      throw new UsageException("--password-file needs --user NAME");
    }
    if ((clientCertificate == null) != (clientKey == null)) {
      throw new UsageException(clientCertificate == null ? "--client-key needs --client-cert PEM" : "--client-cert needs --client-key PEM");
    }
    List<String> authorization = new ArrayList<>();
    if (user != null) {
      authorization.add("--user");
    }
    if (bearerTokenFile != null) {
      authorization.add("--bearer-token-file");
    }
    if (headers.stream().anyMatch(h -> h[0].equalsIgnoreCase("Authorization"))) {
      authorization.add("--header Authorization");
    }
    if (authorization.size() > 1) {
      throw new UsageException(String.join(" and ", authorization) + " each set the Authorization header: give one");
    }
  }

  /** Whether the requests carry credentials: a user, a token or a header of the user's. */
  boolean credentials() {
    return user != null || bearerTokenFile != null || !headers.isEmpty();
  }

  private static String user(String text) throws UsageException {
    if (text.isEmpty() || text.indexOf(':') >= 0 || text.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
      throw new UsageException("--user takes a user name without ':' (basic auth cannot carry one in a name), not '" + text + "'");
    }
    return text;
  }

  private static String[] header(String text) throws UsageException {
    int colon = text.indexOf(':');
    String name = colon < 0 ? "" : text.substring(0, colon).trim();
    String value = colon < 0 ? "" : text.substring(colon + 1).trim();
    if (!HEADER_NAME.matcher(name).matches() || value.isEmpty() || value.chars().anyMatch(c -> c < 0x20 && c != '\t')) {
      throw new UsageException("--header takes 'Name: value', such as 'X-Scope-OrgID: team-a', not '" + text + "'");
    }
    return new String[] {name, value};
  }
}
