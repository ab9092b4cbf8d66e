package dev.resyncmeter.collector.endpoint;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.function.Consumer;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * The endpoint's TLS: a certificate chain and its key from PEM files, optionally a CA whose
 * certificates clients must present, TLS 1.2 and 1.3 only. When the files change, the next new
 * connection gets the new certificate; files that cannot be used leave the old one in use, with one
 * warning.
 */
final class ServerTls {

  private static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};
  private static final char[] NO_PASSWORD = new char[0];

  private final WatchedFiles files;
  private final boolean clientCertificates;
  private final Consumer<String> warnings;
  private volatile SSLContext context;

  private ServerTls(WatchedFiles files, boolean clientCertificates, Consumer<String> warnings) {
    this.files = files;
    this.clientCertificates = clientCertificates;
    this.warnings = warnings;
  }

  /** Reads the files now: any that cannot be used is a {@link SetupException} saying why. */
  static ServerTls load(Path certificate, Path key, Path clientCa, Consumer<String> warnings) throws SetupException {
    WatchedFiles files =
        clientCa == null
            ? new WatchedFiles(new String[] {"tls-cert", "tls-key"}, new Path[] {certificate, key})
            : new WatchedFiles(new String[] {"tls-cert", "tls-key", "tls-client-ca"}, new Path[] {certificate, key, clientCa});
    ServerTls tls = new ServerTls(files, clientCa != null, warnings);
    byte[][] contents = files.read();
    tls.context = tls.context(contents);
    files.inUse(contents);
    return tls;
  }

  /**
   * {@code plain} as the server's side of a TLS connection, with the certificate in use now. The
   * handshake happens at the first read or write, within the socket's timeout.
   */
  SSLSocket serverSide(Socket plain) throws IOException {
    reloadIfChanged();
    SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket(plain, null, plain.getPort(), true);
    socket.setUseClientMode(false);
    SSLParameters parameters = socket.getSSLParameters();
    parameters.setProtocols(PROTOCOLS);
    parameters.setNeedClientAuth(clientCertificates);
    socket.setSSLParameters(parameters);
    return socket;
  }

  private void reloadIfChanged() {
    byte[][] changed = files.changed();
    if (changed == null) {
      return;
    }
    try {
      context = context(changed);
      files.inUse(changed);
    } catch (SetupException e) {
      files.refused(changed);
      warnings.accept("the changed TLS files cannot be used, the certificate in use stays: " + e.getMessage());
    }
  }

  private SSLContext context(byte[][] contents) throws SetupException {
    List<X509Certificate> chain = Pem.certificates(files.what(0), contents[0]);
    PrivateKey key = Pem.privateKey(files.what(1), contents[1]);
    checkMatch(chain.get(0), key);
    try {
      KeyStore keys = KeyStore.getInstance("PKCS12");
      keys.load(null, null);
      keys.setKeyEntry("endpoint", key, NO_PASSWORD, chain.toArray(new X509Certificate[0]));
      KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keyManagers.init(keys, NO_PASSWORD);
      TrustManagerFactory trustManagers = null;
      if (clientCertificates) {
        KeyStore trusted = KeyStore.getInstance("PKCS12");
        trusted.load(null, null);
        List<X509Certificate> authorities = Pem.certificates(files.what(2), contents[2]);
        for (int i = 0; i < authorities.size(); i++) {
          trusted.setCertificateEntry("client-ca-" + i, authorities.get(i));
        }
        trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trustManagers.init(trusted);
      }
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keyManagers.getKeyManagers(), trustManagers == null ? null : trustManagers.getTrustManagers(), null);
      return context;
    } catch (GeneralSecurityException | IOException e) {
      throw new SetupException("TLS cannot be set up with " + files.what(0) + " and " + files.what(1) + ": " + e.getMessage());
    }
  }

  /** A certificate that is not its key's would fail every handshake: said once, at setup. */
  private void checkMatch(X509Certificate certificate, PrivateKey key) throws SetupException {
    boolean matches = Pem.isKeyOf(certificate, key);
    if (!matches) {
      throw new SetupException(
          "the certificate in " + files.what(0) + " (" + certificate.getSubjectX500Principal().getName() + ") is not for the key in " + files.what(1));
    }
  }
}
