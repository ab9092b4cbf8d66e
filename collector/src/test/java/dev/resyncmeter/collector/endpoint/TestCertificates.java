package dev.resyncmeter.collector.endpoint;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A test CA and certificates it signed, made with the JDK's {@code keytool} and written as PEM the way
 * a Kubernetes TLS secret holds them: servers for {@code localhost} and {@code 127.0.0.1} (RSA, EC,
 * and a second RSA one to rotate to), a client, and each key in every encoding the agent reads.
 * Shared with the other modules' tests through this module's test jar.
 */
public final class TestCertificates {

  private static final String STORE_PASSWORD = "test-only";

  /** A key's PEM encoding. */
  public enum KeyEncoding {
    PKCS8,
    /** {@code RSA PRIVATE KEY} or {@code EC PRIVATE KEY} (SEC1, naming its curve). */
    TRADITIONAL
  }

  private final Path directory;

  private TestCertificates(Path directory) {
    this.directory = directory;
  }

  /**
   * Makes everything in {@code directory}: 22 keytool runs, the CA's first and then each signed
   * entity's on a thread of its own (they share nothing but the CA's files, which they only read).
   */
  public static TestCertificates in(Path directory) throws IOException {
    TestCertificates made = new TestCertificates(directory);
    made.keyPair("ca", "RSA", "CN=resync-meter test CA", "-ext", "bc:c");
    made.exportCertificate("ca");
    String[][] entities = {{"server", "RSA"}, {"server-ec", "EC"}, {"rotated", "RSA"}, {"client", "RSA"}};
    ExecutorService threads = Executors.newFixedThreadPool(entities.length);
    try {
      List<Future<Void>> signed = new ArrayList<>();
      for (String[] entity : entities) {
        signed.add(threads.submit(() -> made.entity(entity[0], entity[1])));
      }
      for (Future<Void> entity : signed) {
        entity.get(5, TimeUnit.MINUTES);
      }
    } catch (ExecutionException e) {
      throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
    } catch (InterruptedException | TimeoutException e) {
      Thread.currentThread().interrupt();
      throw new IOException("the test certificates were not made in time", e);
    } finally {
      threads.shutdownNow();
    }
    return made;
  }

  /** One entity's key pair, its certificate signed by the CA, and its keys as PEM. */
  private Void entity(String name, String algorithm) throws IOException {
    boolean server = !name.equals("client");
    keyPair(name, algorithm, "CN=" + (server ? "localhost" : "scraper") + ",O=" + name, new String[0]);
    sign(name, server ? new String[] {"-ext", "san=dns:localhost,ip:127.0.0.1", "-ext", "eku=serverAuth"} : new String[] {"-ext", "eku=clientAuth"});
    writeKeys(name);
    return null;
  }

  public Path caCertificate() {
    return directory.resolve("ca.crt");
  }

  /** The RSA server certificate. */
  public Path serverCertificate() {
    return directory.resolve("server.crt");
  }

  public Path serverKey(KeyEncoding encoding) {
    return key("server", encoding);
  }

  public Path ecServerCertificate() {
    return directory.resolve("server-ec.crt");
  }

  public Path ecServerKey(KeyEncoding encoding) {
    return key("server-ec", encoding);
  }

  /** Another RSA server certificate from the same CA, to rotate to. */
  public Path rotatedCertificate() {
    return directory.resolve("rotated.crt");
  }

  public Path rotatedKey() {
    return key("rotated", KeyEncoding.PKCS8);
  }

  public Path clientCertificate() {
    return directory.resolve("client.crt");
  }

  public Path clientKey() {
    return clientKey(KeyEncoding.PKCS8);
  }

  public Path clientKey(KeyEncoding encoding) {
    return key("client", encoding);
  }

  /** A client's TLS: it trusts the test CA, and presents the client certificate when asked to. */
  public SSLContext clientContext(boolean presentsCertificate) throws GeneralSecurityException, IOException {
    KeyStore trusted = KeyStore.getInstance("PKCS12");
    trusted.load(null, null);
    try (InputStream in = Files.newInputStream(caCertificate())) {
      trusted.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
    }
    TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trust.init(trusted);
    KeyManagerFactory keys = null;
    if (presentsCertificate) {
      KeyStore store = KeyStore.getInstance("PKCS12");
      try (InputStream in = Files.newInputStream(directory.resolve("client.p12"))) {
        store.load(in, STORE_PASSWORD.toCharArray());
      }
      keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keys.init(store, STORE_PASSWORD.toCharArray());
    }
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(keys == null ? null : keys.getKeyManagers(), trust.getTrustManagers(), null);
    return context;
  }

  private Path key(String name, KeyEncoding encoding) {
    return directory.resolve(name + (encoding == KeyEncoding.PKCS8 ? ".key" : "-traditional.key"));
  }

  private void keyPair(String name, String algorithm, String subject, String... extensions) throws IOException {
    List<String> command =
        new ArrayList<>(
            List.of(
                "-genkeypair", "-alias", name, "-keyalg", algorithm, "-keysize", algorithm.equals("EC") ? "256" : "2048", "-dname", subject, "-validity",
                "36500", "-storetype", "PKCS12", "-keystore", store(name), "-storepass", STORE_PASSWORD));
    command.addAll(List.of(extensions));
    keytool(command);
  }

  private void exportCertificate(String name) throws IOException {
    keytool(List.of("-exportcert", "-rfc", "-alias", name, "-keystore", store(name), "-storepass", STORE_PASSWORD, "-file", directory.resolve(name + ".crt").toString()));
  }

  /** The CA signs {@code name}'s key: its certificate, PEM, in {@code name.crt}. */
  private void sign(String name, String... extensions) throws IOException {
    String request = directory.resolve(name + ".csr").toString();
    keytool(List.of("-certreq", "-alias", name, "-keystore", store(name), "-storepass", STORE_PASSWORD, "-file", request));
    List<String> command =
        new ArrayList<>(
            List.of(
                "-gencert", "-rfc", "-alias", "ca", "-keystore", store("ca"), "-storepass", STORE_PASSWORD, "-validity", "36500", "-infile", request, "-outfile",
                directory.resolve(name + ".crt").toString()));
    command.addAll(List.of(extensions));
    keytool(command);
    Files.delete(Path.of(request));
    // the signed certificate back into the client's store, so that a TLS client can present it
    keytool(List.of("-importcert", "-noprompt", "-alias", "ca", "-keystore", store(name), "-storepass", STORE_PASSWORD, "-file", caCertificate().toString()));
    keytool(List.of("-importcert", "-noprompt", "-alias", name, "-keystore", store(name), "-storepass", STORE_PASSWORD, "-file", directory.resolve(name + ".crt").toString()));
  }

  /** {@code name}'s private key as PKCS#8 and as PKCS#1 (RSA) or SEC1 naming its curve (EC). */
  private void writeKeys(String name) throws IOException {
    try {
      KeyStore store = KeyStore.getInstance("PKCS12");
      try (InputStream in = Files.newInputStream(Path.of(store(name)))) {
        store.load(in, STORE_PASSWORD.toCharArray());
      }
      Key key = store.getKey(name, STORE_PASSWORD.toCharArray());
      byte[] pkcs8 = key.getEncoded();
      pem(key(name, KeyEncoding.PKCS8), "PRIVATE KEY", pkcs8);
      List<Der.Element> fields = Der.read(pkcs8).children();
      byte[] inner = fields.get(2).contents();
      if (key.getAlgorithm().equals("RSA")) {
        pem(key(name, KeyEncoding.TRADITIONAL), "RSA PRIVATE KEY", inner);
      } else {
        // the JDK leaves the curve out of the key inside PKCS#8; SEC1 on its own names it in [0]
        byte[] curve = fields.get(1).children().get(1).whole();
        List<Der.Element> sec1 = Der.read(inner).children();
        pem(
            key(name, KeyEncoding.TRADITIONAL),
            "EC PRIVATE KEY",
            Der.element(Der.SEQUENCE, sec1.get(0).whole(), sec1.get(1).whole(), Der.element(Der.CONTEXT_0, curve)));
      }
    } catch (GeneralSecurityException | Der.KeyFormatException e) {
      throw new IOException(e);
    }
  }

  private static void pem(Path file, String label, byte[] der) throws IOException {
    String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
    Files.writeString(file, "-----BEGIN " + label + "-----\n" + body + "\n-----END " + label + "-----\n");
  }

  private String store(String name) {
    return directory.resolve(name + ".p12").toString();
  }

  private static void keytool(List<String> arguments) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    // Each run is a short JVM: the client compiler only and the serial collector start it with about
    // half the CPU time, which is most of what these 22 runs cost on a busy build machine.
    command.addAll(List.of("-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC", "-J-Xshare:auto"));
    command.addAll(arguments);
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    try {
      byte[] output = process.getInputStream().readAllBytes();
      if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
        throw new IOException("keytool " + arguments.get(0) + " failed: " + new String(output, StandardCharsets.UTF_8));
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }
}
