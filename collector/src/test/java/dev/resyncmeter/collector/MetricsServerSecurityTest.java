package dev.resyncmeter.collector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resyncmeter.collector.endpoint.EndpointSecurity;
import dev.resyncmeter.collector.endpoint.SetupException;
import dev.resyncmeter.collector.endpoint.TestCertificates;
import dev.resyncmeter.collector.endpoint.TestCertificates.KeyEncoding;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The endpoint with TLS and basic authentication, over real loopback sockets: what a client with the
 * right certificate and credentials gets, what everyone else gets (nothing but a refusal, counted),
 * rotation on disk, and settings that cannot be honoured.
 */
class MetricsServerSecurityTest {

  private static final String SERIES = "informer_resyncs_total{kind=\"ConfigMap\"} 1.0";
  private static final String USER = "prometheus";
  private static final String PASSWORD = "s3cret-from-a-secret";

  @TempDir static Path shared;
  private static TestCertificates certificates;

  @TempDir Path files;
  private final ResyncMetrics metrics = new ResyncMetrics();
  private final List<String> warnings = new CopyOnWriteArrayList<>();
  private MetricsServer server;

  @BeforeAll
  static void makeCertificates() throws IOException {
    certificates = TestCertificates.in(shared);
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void servesOverTls12And13WithEveryKeyEncodingARealSecretHolds() throws Exception {
    List<Path[]> pairs =
        List.of(
            new Path[] {certificates.serverCertificate(), certificates.serverKey(KeyEncoding.PKCS8)},
            new Path[] {certificates.serverCertificate(), certificates.serverKey(KeyEncoding.TRADITIONAL)},
            new Path[] {certificates.ecServerCertificate(), certificates.ecServerKey(KeyEncoding.PKCS8)},
            new Path[] {certificates.ecServerCertificate(), certificates.ecServerKey(KeyEncoding.TRADITIONAL)});
    for (Path[] pair : pairs) {
      start(EndpointSecurity.load(pair[0], pair[1], null, null, null, warnings::add));
      for (String protocol : List.of("TLSv1.3", "TLSv1.2")) {
        RawHttp.Response response = tlsScrape(certificates.clientContext(false), protocol, null);
        assertThat(response.status()).as(pair[1] + " " + protocol).isEqualTo(200);
        assertThat(response.body()).contains(SERIES);
      }
      server.close();
    }
    assertThat(warnings).isEmpty();
  }

  @Test
  void plainHttpOnTheTlsPortGetsNoMetricsAndIsCounted() throws Exception {
    start(EndpointSecurity.load(certificates.serverCertificate(), certificates.serverKey(KeyEncoding.PKCS8), null, null, null, warnings::add));
    RawHttp.Response response = RawHttp.send(server.port(), "GET /metrics HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1), false, 5_000);
    assertThat(response.status()).isNotEqualTo(200);
    assertThat(response.body()).doesNotContain("informer_resyncs_total");
    assertThat(tlsScrape(certificates.clientContext(false), "TLSv1.3", null).status()).isEqualTo(200);
    assertThat(Refusals.of(metrics, "tls_handshake")).isEqualTo(1);
  }

  @Test
  void basicAuthAnswers401WithAChallengeUnlessTheCredentialsAreRight() throws Exception {
    start(EndpointSecurity.load(null, null, null, USER, passwordFile(PASSWORD + "\n"), warnings::add));
    RawHttp.Response none = plainScrape(null);
    assertThat(none.status()).isEqualTo(401);
    assertThat(none.header("WWW-Authenticate")).isEqualTo("Basic realm=\"resync-meter\", charset=\"UTF-8\"");
    assertThat(none.body()).doesNotContain("informer_resyncs_total");
    assertThat(plainScrape(basic(USER, "wrong")).status()).isEqualTo(401);
    assertThat(plainScrape(basic("someone", PASSWORD)).status()).isEqualTo(401);
    assertThat(plainScrape(basic(USER, PASSWORD + "\n")).status()).isEqualTo(401);
    assertThat(plainScrape("Bearer " + PASSWORD).status()).isEqualTo(401);
    assertThat(plainScrape("Basic !!not-base64!!").status()).isEqualTo(401);
    // without credentials, not even a wrong path is told apart
    assertThat(RawHttp.send(server.port(), "GET /other HTTP/1.1\r\n\r\n").status()).isEqualTo(401);
    RawHttp.Response right = plainScrape(basic(USER, PASSWORD));
    assertThat(right.status()).isEqualTo(200);
    assertThat(right.body()).contains(SERIES);
    assertThat(Refusals.of(metrics, "no_credentials")).isEqualTo(3);
    assertThat(Refusals.of(metrics, "wrong_credentials")).isEqualTo(4);
  }

  @Test
  void tlsAndBasicAuthTogether() throws Exception {
    start(EndpointSecurity.load(certificates.serverCertificate(), certificates.serverKey(KeyEncoding.PKCS8), null, USER, passwordFile(PASSWORD), warnings::add));
    assertThat(tlsScrape(certificates.clientContext(false), "TLSv1.3", null).status()).isEqualTo(401);
    assertThat(tlsScrape(certificates.clientContext(false), "TLSv1.3", basic(USER, PASSWORD)).body()).contains(SERIES);
  }

  @Test
  void withAClientCaOnlyClientsWithItsCertificateAreServed() throws Exception {
    start(
        EndpointSecurity.load(
            certificates.serverCertificate(), certificates.serverKey(KeyEncoding.PKCS8), certificates.caCertificate(), null, null, warnings::add));
    assertThat(tlsScrape(certificates.clientContext(true), "TLSv1.3", null).body()).contains(SERIES);
    for (String protocol : List.of("TLSv1.3", "TLSv1.2")) {
      // TLS 1.3 sends the refusal after the client's handshake ends, so it may show at the first read
      assertThatThrownBy(() -> tlsScrape(certificates.clientContext(false), protocol, null)).as(protocol).isInstanceOf(IOException.class);
    }
    assertThat(Refusals.of(metrics, "tls_handshake")).isEqualTo(2);
  }

  @Test
  void aCertificateReplacedOnDiskIsTheOneTheNextConnectionSees() throws Exception {
    Path certificate = copy(certificates.serverCertificate(), "tls.crt");
    Path key = copy(certificates.serverKey(KeyEncoding.PKCS8), "tls.key");
    start(EndpointSecurity.load(certificate, key, null, null, null, warnings::add));
    assertThat(servedSubject()).contains("O=server");
    copy(certificates.rotatedCertificate(), "tls.crt");
    copy(certificates.rotatedKey(), "tls.key");
    String subject = servedSubject();
    for (int i = 0; i < 50 && !subject.contains("O=rotated"); i++) {
      Thread.sleep(100);
      subject = servedSubject();
    }
    assertThat(subject).contains("O=rotated");
    // a rotation that went wrong leaves the last good certificate, said once
    Files.writeString(key, "not a key");
    Thread.sleep(1_100);
    for (int i = 0; i < 3; i++) {
      assertThat(servedSubject()).contains("O=rotated");
    }
    assertThat(warnings).hasSize(1);
    assertThat(warnings.get(0)).contains("tls-key " + key).contains("the certificate in use stays");
  }

  @Test
  void aPasswordReplacedOnDiskIsTheOneTheNextRequestNeeds() throws Exception {
    Path file = passwordFile(PASSWORD);
    start(EndpointSecurity.load(null, null, null, USER, file, warnings::add));
    assertThat(plainScrape(basic(USER, PASSWORD)).status()).isEqualTo(200);
    Files.writeString(file, "the-next-one");
    int status = 0;
    for (int i = 0; i < 50 && status != 200; i++) {
      Thread.sleep(100);
      status = plainScrape(basic(USER, "the-next-one")).status();
    }
    assertThat(status).isEqualTo(200);
    assertThat(plainScrape(basic(USER, PASSWORD)).status()).isEqualTo(401);
  }

  @Test
  void sixtyConnectionsStuckBeforeOrInTheirHandshakeDoNotKeepAScrapeOut() throws Exception {
    start(EndpointSecurity.load(certificates.serverCertificate(), certificates.serverKey(KeyEncoding.PKCS8), null, USER, passwordFile(PASSWORD), warnings::add));
    List<Socket> held = new ArrayList<>();
    try {
      for (int i = 0; i < 60; i++) {
        Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.port());
        if (i % 2 == 1) {
          // the first bytes of a ClientHello, and then nothing
          socket.getOutputStream().write(new byte[] {0x16, 0x03, 0x01, 0x02, 0x00, 0x01});
          socket.getOutputStream().flush();
        }
        held.add(socket);
      }
      long start = System.nanoTime();
      RawHttp.Response scrape = tlsScrape(certificates.clientContext(false), "TLSv1.3", basic(USER, PASSWORD));
      assertThat(scrape.status()).isEqualTo(200);
      assertThat(System.nanoTime() - start).as("answered within 5 s").isLessThan(5_000_000_000L);
    } finally {
      for (Socket socket : held) {
        socket.close();
      }
    }
  }

  @Test
  void settingsThatCannotBeHonouredSayWhyInOneLine() throws Exception {
    Path missing = files.resolve("missing.key");
    assertThatThrownBy(() -> EndpointSecurity.load(certificates.serverCertificate(), missing, null, null, null, warnings::add))
        .isInstanceOf(SetupException.class)
        .hasMessage("tls-key " + missing + " does not exist");
    assertThatThrownBy(() -> EndpointSecurity.load(certificates.serverCertificate(), certificates.ecServerKey(KeyEncoding.PKCS8), null, null, null, warnings::add))
        .hasMessageContaining("is not for the key in tls-key");
    Path garbage = Files.writeString(files.resolve("garbage.key"), "hello");
    assertThatThrownBy(() -> EndpointSecurity.load(certificates.serverCertificate(), garbage, null, null, null, warnings::add))
        .hasMessage("tls-key " + garbage + " holds no PEM private key (PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY)");
    Path encrypted = Files.writeString(files.resolve("encrypted.key"), "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n");
    assertThatThrownBy(() -> EndpointSecurity.load(certificates.serverCertificate(), encrypted, null, null, null, warnings::add))
        .hasMessageContaining("holds an encrypted key");
    assertThatThrownBy(() -> EndpointSecurity.load(certificates.serverKey(KeyEncoding.PKCS8), certificates.serverKey(KeyEncoding.PKCS8), null, null, null, warnings::add))
        .hasMessageContaining("holds no PEM certificate");
    assertThatThrownBy(() -> EndpointSecurity.load(certificates.serverCertificate(), null, null, null, null, warnings::add))
        .hasMessage("tls-cert is set without tls-key");
    assertThatThrownBy(() -> EndpointSecurity.load(null, null, null, USER, null, warnings::add))
        .hasMessage("basic-auth-user is set without basic-auth-password-file");
    Path empty = passwordFile("\n");
    assertThatThrownBy(() -> EndpointSecurity.load(null, null, null, USER, empty, warnings::add)).hasMessage("basic-auth-password-file " + empty + " is empty");
  }

  @BeforeEach
  void oneResync() {
    metrics.informer("ConfigMap").resync();
  }

  private void start(EndpointSecurity security) throws IOException {
    server = MetricsServer.start("127.0.0.1", 0, metrics, security);
  }

  private Path passwordFile(String content) throws IOException {
    return Files.writeString(Files.createTempFile(files, "password", ""), content);
  }

  private Path copy(Path from, String name) throws IOException {
    Path to = files.resolve(name);
    Path partial = files.resolve(name + ".new");
    Files.copy(from, partial, StandardCopyOption.REPLACE_EXISTING);
    Files.move(partial, to, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    return to;
  }

  private static String basic(String user, String password) {
    return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
  }

  private RawHttp.Response plainScrape(String authorization) throws Exception {
    return RawHttp.send(server.port(), request(authorization));
  }

  private static String request(String authorization) {
    return "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n" + (authorization == null ? "" : "Authorization: " + authorization + "\r\n") + "\r\n";
  }

  private RawHttp.Response tlsScrape(SSLContext client, String protocol, String authorization) throws IOException {
    try (SSLSocket socket = tlsSocket(client, protocol)) {
      OutputStream out = socket.getOutputStream();
      out.write(request(authorization).getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      InputStream in = socket.getInputStream();
      return RawHttp.parse(RawHttp.readToEnd(in));
    }
  }

  private String servedSubject() throws Exception {
    try (SSLSocket socket = tlsSocket(certificates.clientContext(false), "TLSv1.3")) {
      socket.startHandshake();
      return ((X509Certificate) socket.getSession().getPeerCertificates()[0]).getSubjectX500Principal().getName();
    }
  }

  private SSLSocket tlsSocket(SSLContext client, String protocol) throws IOException {
    SSLSocket socket = (SSLSocket) client.getSocketFactory().createSocket(InetAddress.getLoopbackAddress(), server.port());
    socket.setSoTimeout(5_000);
    socket.setEnabledProtocols(new String[] {protocol});
    var parameters = socket.getSSLParameters();
    parameters.setEndpointIdentificationAlgorithm("HTTPS");
    socket.setSSLParameters(parameters);
    return socket;
  }
}
