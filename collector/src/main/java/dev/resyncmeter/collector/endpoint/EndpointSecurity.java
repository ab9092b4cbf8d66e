package dev.resyncmeter.collector.endpoint;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * What the endpoint asks of a client: TLS (and a client certificate), basic authentication, both or
 * neither. Loaded before the endpoint binds, so that a setting that cannot be honoured stops the
 * endpoint instead of serving without it.
 */
public final class EndpointSecurity {

  /** Plain HTTP, and anyone who reaches the port may scrape. */
  public static final EndpointSecurity NONE = new EndpointSecurity(null, null);

  private final ServerTls tls;
  private final BasicAuth auth;

  private EndpointSecurity(ServerTls tls, BasicAuth auth) {
    this.tls = tls;
    this.auth = auth;
  }

  /**
   * Reads what the settings name. {@code certificate} and {@code key} come together or not at all,
   * {@code clientCa} only with them; likewise {@code user} and {@code passwordFile}. {@code warnings}
   * hears of rotated files that cannot be used.
   *
   * @throws SetupException when a setting cannot be honoured, with the one line that says why
   */
  public static EndpointSecurity load(Path certificate, Path key, Path clientCa, String user, Path passwordFile, Consumer<String> warnings)
      throws SetupException {
    if ((certificate == null) != (key == null)) {
      throw new SetupException(certificate == null ? "tls-key is set without tls-cert" : "tls-cert is set without tls-key");
    }
    if (clientCa != null && certificate == null) {
      throw new SetupException("tls-client-ca is set without tls-cert and tls-key");
    }
    if ((user == null) != (passwordFile == null)) {
      throw new SetupException(user == null ? "basic-auth-password-file is set without basic-auth-user" : "basic-auth-user is set without basic-auth-password-file");
    }
    ServerTls tls = certificate == null ? null : ServerTls.load(certificate, key, clientCa, warnings);
    BasicAuth auth = user == null ? null : BasicAuth.load(user, passwordFile);
    return new EndpointSecurity(tls, auth);
  }

  public boolean tls() {
    return tls != null;
  }

  public boolean basicAuth() {
    return auth != null;
  }

  /** The URL scheme a client uses. */
  public String scheme() {
    return tls == null ? "http" : "https";
  }

  /** {@code plain}, or its TLS server side when TLS is on (the handshake comes at the first read). */
  public Socket accepted(Socket plain) throws IOException {
    return tls == null ? plain : tls.serverSide(plain);
  }

  /**
   * Why a request with this {@code Authorization} header value (null: none) may not be answered, or
   * null when it may.
   */
  public Refusal refusal(String authorization) {
    if (auth == null) {
      return null;
    }
    return switch (auth.check(authorization)) {
      case ALLOWED -> null;
      case MISSING -> Refusal.NO_CREDENTIALS;
      case WRONG -> Refusal.WRONG_CREDENTIALS;
    };
  }
}
