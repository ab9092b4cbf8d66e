package dev.resyncmeter.collector.endpoint;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Locale;

/**
 * HTTP basic authentication against one user name and a password read from a file (a mounted
 * secret; read again when it changes). Credentials are compared as SHA-256 digests with
 * {@link MessageDigest#isEqual}, so the time a check takes says nothing of how much of them was right.
 */
final class BasicAuth {

  /** What a request's {@code Authorization} header amounts to. */
  enum Verdict {
    ALLOWED,
    MISSING,
    WRONG
  }

  private final String user;
  private final WatchedFiles passwordFile;
  private volatile byte[] expected;

  private BasicAuth(String user, WatchedFiles passwordFile) {
    this.user = user;
    this.passwordFile = passwordFile;
  }

  static BasicAuth load(String user, Path passwordFile) throws SetupException {
    if (user.indexOf(':') >= 0) {
      throw new SetupException("basic-auth-user '" + user + "' holds a ':', which basic authentication cannot carry in a user name");
    }
    BasicAuth auth = new BasicAuth(user, new WatchedFiles(new String[] {"basic-auth-password-file"}, new Path[] {passwordFile}));
    byte[][] contents = auth.passwordFile.read();
    auth.expected = auth.digest(contents[0]);
    auth.passwordFile.inUse(contents);
    return auth;
  }

  /** The verdict on an {@code Authorization} header's value, null when the request sent none. */
  Verdict check(String authorization) {
    reloadIfChanged();
    if (authorization == null) {
      return Verdict.MISSING;
    }
    int space = authorization.indexOf(' ');
    if (space < 0 || !authorization.substring(0, space).toLowerCase(Locale.ROOT).equals("basic")) {
      return Verdict.MISSING;
    }
    byte[] given;
    try {
      given = Base64.getDecoder().decode(authorization.substring(space + 1).strip());
    } catch (IllegalArgumentException e) {
      return Verdict.WRONG;
    }
    return MessageDigest.isEqual(sha256(given), expected) ? Verdict.ALLOWED : Verdict.WRONG;
  }

  private void reloadIfChanged() {
    byte[][] changed = passwordFile.changed();
    if (changed != null) {
      try {
        expected = digest(changed[0]);
        passwordFile.inUse(changed);
      } catch (SetupException e) {
        passwordFile.refused(changed);
      }
    }
  }

  /** The digest of {@code user:password}, the password being the file without its line end. */
  private byte[] digest(byte[] file) throws SetupException {
    String password = new String(file, StandardCharsets.UTF_8);
    if (password.endsWith("\n")) {
      password = password.substring(0, password.length() - (password.endsWith("\r\n") ? 2 : 1));
    }
    if (password.isEmpty()) {
      throw new SetupException(passwordFile.what(0) + " is empty");
    }
    return sha256((user + ":" + password).getBytes(StandardCharsets.UTF_8));
  }

  private static byte[] sha256(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e); // every JDK has SHA-256
    }
  }
}
