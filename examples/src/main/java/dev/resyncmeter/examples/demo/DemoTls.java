package dev.resyncmeter.examples.demo;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What {@code ./demo --tls} serves its metrics with: a self-signed certificate for {@code 127.0.0.1}
 * made by the JDK's {@code keytool}, its key as PEM, and a random password for basic auth; the agent
 * reads them as it would a Kubernetes TLS secret and a password secret.
 *
 * <p>{@code java -cp resync-meter-examples.jar dev.resyncmeter.examples.demo.DemoTls DIR} writes
 * {@code DIR/tls.crt}, {@code DIR/tls.key} and {@code DIR/password} anew at each run: nothing the
 * demo serves with outlives it by much, and an old certificate never expires under it.
 */
public final class DemoTls {

  private static final String STORE_PASSWORD = "demo-only";

  private DemoTls() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 1) {
      System.err.println("usage: DemoTls DIR");
      System.exit(2);
    }
    make(Files.createDirectories(Path.of(args[0])));
  }

  static void make(Path directory) throws IOException, GeneralSecurityException {
    Path store = directory.resolve("demo.p12");
    Files.deleteIfExists(store);
    keytool("-genkeypair", "-alias", "demo", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=localhost", "-ext", "san=dns:localhost,ip:127.0.0.1",
        "-validity", "30", "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", STORE_PASSWORD);
    keytool("-exportcert", "-rfc", "-alias", "demo", "-keystore", store.toString(), "-storepass", STORE_PASSWORD, "-file", directory.resolve("tls.crt").toString());
    KeyStore keys = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(store)) {
      keys.load(in, STORE_PASSWORD.toCharArray());
    }
    byte[] pkcs8 = keys.getKey("demo", STORE_PASSWORD.toCharArray()).getEncoded();
    String pem = Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(pkcs8);
    Files.writeString(directory.resolve("tls.key"), "-----BEGIN PRIVATE KEY-----\n" + pem + "\n-----END PRIVATE KEY-----\n");
    byte[] password = new byte[16];
    new SecureRandom().nextBytes(password);
    Files.writeString(directory.resolve("password"), HexFormat.of().formatHex(password) + "\n");
    Files.delete(store);
  }

  private static void keytool(String... arguments) throws IOException {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool").toString()));
    command.addAll(List.of(arguments));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    try {
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
        throw new IOException("keytool " + arguments[0] + " failed: " + output.strip());
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }
}
