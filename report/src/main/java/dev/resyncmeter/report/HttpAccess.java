package dev.resyncmeter.report;

import dev.resyncmeter.collector.endpoint.Pem;
import dev.resyncmeter.collector.endpoint.SetupException;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.PortUnreachableException;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * The one way the report reaches a server over HTTP, an agent's endpoint or a Prometheus server: the
 * {@link AccessOptions}' files read once (CA, client certificate and key, password, token), each
 * request sent with their TLS and credentials, and what went wrong (TLS, a refusal of the
 * credentials, a redirect) said in words for one line.
 */
final class HttpAccess {

  private static final char[] NO_PASSWORD = new char[0];
  private static final int PROBE_MILLIS = 2_000;

  private final AccessOptions options;
  /** Null: the JDK's default trust and no client certificate. */
  private final SSLSocketFactory tls;
  /** The Authorization header's value, or null for none. */
  private final String authorization;

  private HttpAccess(AccessOptions options, SSLSocketFactory tls, String authorization) {
    this.options = options;
    this.tls = tls;
    this.authorization = authorization;
  }

  /** Plain requests: the JDK's trust, no client certificate, no credentials. */
  static HttpAccess none() {
    return new HttpAccess(new AccessOptions(), null, null);
  }

  /** Reads the files the options name; one that cannot be used is a {@link ReportException} naming it. */
  static HttpAccess load(AccessOptions options) throws ReportException {
    String authorization = null;
    if (options.user != null) {
      String credentials = options.user + ":" + password(options.passwordFile);
      authorization = "Basic " + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8));
    } else if (options.bearerTokenFile != null) {
      authorization = "Bearer " + token(options.bearerTokenFile);
    }
    SSLSocketFactory tls = options.caFile == null && options.clientCertificate == null ? null : tls(options);
    return new HttpAccess(options, tls, authorization);
  }

  /**
   * A connection to {@code uri} with the TLS and the credentials, not yet connected. Redirects are not
   * followed: the credentials go to the URL given and nowhere else ({@link #refusal} says where the
   * server redirects to).
   */
  HttpURLConnection open(URI uri, int timeoutMillis) throws IOException {
    HttpURLConnection connection = (HttpURLConnection) uri.toURL().openConnection();
    connection.setConnectTimeout(timeoutMillis);
    connection.setReadTimeout(timeoutMillis);
    connection.setInstanceFollowRedirects(false);
    if (authorization != null) {
      connection.setRequestProperty("Authorization", authorization);
    }
    for (String[] header : options.headers) {
      connection.setRequestProperty(header[0], header[1]);
    }
    if (tls != null && connection instanceof HttpsURLConnection https) {
      https.setSSLSocketFactory(tls);
    }
    return connection;
  }

  /**
   * Why an answer with {@code status} is a refusal of the request as sent, in one line that starts with
   * {@code url}: 401 and 403 (the credentials missing or refused), a redirect; null for any other
   * status. {@code server} names the server in the line ("the endpoint", "the server").
   */
  String refusal(HttpURLConnection connection, int status, String url, String server) throws IOException {
    String reason = connection.getResponseMessage();
    String answered = url + " answered HTTP " + status + (reason == null || reason.isBlank() ? "" : " " + reason.strip());
    if (status == 401) {
      String challenge = String.valueOf(connection.getHeaderField("WWW-Authenticate")).toLowerCase(Locale.ROOT);
      boolean basic = challenge.startsWith("basic");
      boolean bearer = challenge.startsWith("bearer");
      String asks = server + " asks for credentials" + (basic ? " (basic auth)" : bearer ? " (a bearer token)" : "");
      if (!options.credentials()) {
        return answered + ": " + asks + " and "
            + (basic ? "--user/--password-file were not given" : bearer ? "--bearer-token-file was not given" : "none were given (--user/--password-file, --bearer-token-file, --header)");
      }
      String hint = basic && options.user == null ? "; it asks for basic auth: --user/--password-file" : bearer && options.bearerTokenFile == null ? "; it asks for a bearer token: --bearer-token-file" : "";
      return answered + ": " + asks + " and the credentials were refused (" + given() + hint + ")";
    }
    if (status == 403) {
      return answered + ": " + (options.credentials() ? "the credentials given are refused (" + given() + ")" : server + " refuses to answer without credentials (--user/--password-file, --bearer-token-file, --header)");
    }
    if (status >= 300 && status < 400 && status != 304) {
      String location = connection.getHeaderField("Location");
      return answered + ", a redirect" + (location == null ? "" : " to " + location)
          + ": the report follows none (credentials go only to the URL given); give the URL it redirects to";
    }
    return null;
  }

  /**
   * What went wrong reaching {@code uri}, for the end of a line that names it: {@code " over TLS: ..."}
   * for TLS, else {@code ": ..."}; a scheme that does not fit the server's is said so.
   */
  String failure(URI uri, IOException e) {
    if (e instanceof SSLException ssl) {
      return " over TLS: " + tlsProblem(uri, ssl);
    }
    String words = Problems.inWords(e);
    boolean closed =
        !(e instanceof ConnectException || e instanceof NoRouteToHostException || e instanceof PortUnreachableException)
            && (e instanceof SocketException || words.contains("end of file") || words.contains("error writing to server"));
    if (closed && "http".equals(uri.getScheme())) {
      // a TLS server closes a connection that starts without a TLS handshake, before any answer
      return ": " + words + " (is it served over TLS? then give " + withScheme(uri, "https") + ")";
    }
    if (closed) {
      // TLS 1.3 checks the client's certificate after the client's side of the handshake is done: a
      // refusal may come as an alert (tlsProblem) or as the connection closed under the request
      return ": " + words + " after the TLS handshake: "
          + (options.clientCertificate == null
              ? "the server may ask for a client certificate (give --client-cert PEM and --client-key PEM)"
              : "the server may have refused the client certificate in --client-cert " + options.clientCertificate + " (is it signed by a CA the server trusts?)");
    }
    return ": " + words;
  }

  /** For an answer that is no HTTP at all: a hint when {@code uri}'s scheme may be the wrong one. */
  static String notHttpHint(URI uri) {
    return "http".equals(uri.getScheme()) ? " (is it served over TLS? then give " + withScheme(uri, "https") + ")" : "";
  }

  /**
   * After an https request got no answer in time: whether the server speaks plain HTTP on that port (a
   * plain server waits for a request line that a TLS handshake never brings), said for the end of the
   * line; empty when it does not or cannot be told. One short request, on this failure only.
   */
  static String plainHttpHint(URI uri) {
    if (!"https".equals(uri.getScheme())) {
      return "";
    }
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort() == -1 ? 443 : uri.getPort()), PROBE_MILLIS);
      socket.setSoTimeout(PROBE_MILLIS);
      socket.getOutputStream().write(("HEAD / HTTP/1.0\r\nHost: " + uri.getHost() + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      if (new String(socket.getInputStream().readNBytes(5), StandardCharsets.US_ASCII).equals("HTTP/")) {
        return " (it answers plain HTTP on that port: give " + withScheme(uri, "http") + ")";
      }
    } catch (IOException | IllegalArgumentException e) {
      // no hint
    }
    return "";
  }

  private String tlsProblem(URI uri, SSLException e) {
    String message = String.valueOf(e.getMessage());
    Throwable cause = e.getCause();
    String all = message + (cause == null ? "" : " " + cause.getMessage());
    if (all.contains("PKIX") || all.contains("certification path")) {
      return "its certificate is not signed by "
          + (options.caFile == null ? "a CA the JDK trusts (give its CA with --ca-file PEM)" : "a CA in --ca-file " + options.caFile);
    }
    if (all.contains("No subject alternative") || all.contains("No name matching")) {
      return "its certificate is not for the host name " + uri.getHost();
    }
    if (all.contains("validity check failed") || all.contains("NotAfter") || all.contains("expired")) {
      return "its certificate has expired or is not yet valid";
    }
    if (all.contains("Unsupported or unrecognized SSL message") || all.contains("plaintext connection")) {
      return "it does not speak TLS (is it plain HTTP? then give " + withScheme(uri, "http") + ")";
    }
    if (all.contains("certificate_required") || all.contains("bad_certificate") || all.contains("unknown_ca") || all.contains("certificate_unknown")) {
      return options.clientCertificate == null
          ? "it asks for a client certificate (give --client-cert PEM and --client-key PEM)"
          : "it refused the client certificate in --client-cert " + options.clientCertificate + " (is it signed by a CA the server trusts?)";
    }
    return Problems.inWords(e);
  }

  private static String withScheme(URI uri, String scheme) {
    return scheme + uri.toString().substring(uri.getScheme().length());
  }

  private String given() {
    List<String> given = new ArrayList<>();
    if (options.user != null) {
      given.add("--user " + options.user);
    }
    if (options.bearerTokenFile != null) {
      given.add("--bearer-token-file");
    }
    if (!options.headers.isEmpty()) {
      given.add("--header");
    }
    return String.join(", ", given);
  }

  // ---- the files ---------------------------------------------------------------------------------

  /** The password: the file's text without its line end (as the agent reads basic-auth-password-file). */
  private static String password(Path file) throws ReportException {
    String password = text(file, "--password-file");
    if (password.endsWith("\n")) {
      password = password.substring(0, password.length() - (password.endsWith("\r\n") ? 2 : 1));
    }
    if (password.isEmpty()) {
      throw new ReportException("--password-file " + file + " is empty");
    }
    return password;
  }

  private static String token(Path file) throws ReportException {
    String token = text(file, "--bearer-token-file").strip();
    if (token.isEmpty() || token.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
      throw new ReportException("--bearer-token-file " + file + (token.isEmpty() ? " is empty" : " holds more than one line"));
    }
    return token;
  }

  private static String text(Path file, String option) throws ReportException {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new ReportException("cannot read " + option + " " + file + ": " + Problems.inWords(e));
    }
  }

  private static byte[] bytes(Path file, String option) throws ReportException {
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new ReportException("cannot read " + option + " " + file + ": " + Problems.inWords(e));
    }
  }

  /** Trusts the certificates in --ca-file (and only those), or the JDK's; presents the client certificate, if any. */
  private static SSLSocketFactory tls(AccessOptions options) throws ReportException {
    try {
      TrustManagerFactory trust = null;
      if (options.caFile != null) {
        KeyStore trusted = KeyStore.getInstance("PKCS12");
        trusted.load(null, null);
        int i = 0;
        for (X509Certificate certificate : certificates(options.caFile, "--ca-file")) {
          trusted.setCertificateEntry("ca-" + i++, certificate);
        }
        trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(trusted);
      }
      KeyManagerFactory keys = null;
      if (options.clientCertificate != null) {
        List<X509Certificate> chain = certificates(options.clientCertificate, "--client-cert");
        PrivateKey key = privateKey(options.clientKey);
        // a key that is not the certificate's would fail the handshake later, and vaguer
        if (!Pem.isKeyOf(chain.get(0), key)) {
          throw new ReportException("--client-key " + options.clientKey + " is not the key of the certificate in --client-cert " + options.clientCertificate);
        }
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setKeyEntry("client", key, NO_PASSWORD, chain.toArray(new Certificate[0]));
        keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(store, NO_PASSWORD);
      }
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keys == null ? null : keys.getKeyManagers(), trust == null ? null : trust.getTrustManagers(), null);
      return context.getSocketFactory();
    } catch (GeneralSecurityException | IOException e) {
      List<String> files = new ArrayList<>();
      if (options.caFile != null) {
        files.add("--ca-file " + options.caFile);
      }
      if (options.clientCertificate != null) {
        files.add("--client-cert " + options.clientCertificate);
      }
      throw new ReportException("cannot set up TLS with " + String.join(" and ", files) + ": " + oneLine(String.valueOf(e.getMessage())));
    }
  }

  private static List<X509Certificate> certificates(Path file, String option) throws ReportException {
    try {
      return Pem.certificates(option + " " + file, bytes(file, option));
    } catch (SetupException e) {
      throw new ReportException(e.getMessage());
    }
  }

  /** The key, RSA or EC, in PKCS#8, PKCS#1 or SEC1, as the agent reads its own. */
  private static PrivateKey privateKey(Path file) throws ReportException {
    try {
      return Pem.privateKey("--client-key " + file, bytes(file, "--client-key"));
    } catch (SetupException e) {
      throw new ReportException(e.getMessage());
    }
  }

  private static String oneLine(String text) {
    return text.replaceAll("\\s*\\n\\s*", " ").strip();
  }
}
