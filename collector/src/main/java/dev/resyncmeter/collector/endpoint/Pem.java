package dev.resyncmeter.collector.endpoint;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Certificates and private keys in PEM, as a Kubernetes TLS secret or cert-manager writes them:
 * certificates in {@code CERTIFICATE} blocks, a key as PKCS#8 ({@code PRIVATE KEY}), PKCS#1
 * ({@code RSA PRIVATE KEY}) or SEC1 ({@code EC PRIVATE KEY}). Each failure is a {@link SetupException}
 * whose message says what the file holds instead. The agent's endpoint and the report's client both
 * read their files here.
 */
public final class Pem {

  private static final Pattern BLOCK = Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----([^-]*)-----END \\1-----");
  private static final String RSA_ENCRYPTION = "1.2.840.113549.1.1.1";
  private static final String EC_PUBLIC_KEY = "1.2.840.10045.2.1";

  private record Block(String label, byte[] der) {}

  private Pem() {}

  /** Every certificate in {@code text}, in order: a server's own first, then the chain. */
  public static List<X509Certificate> certificates(String what, byte[] text) throws SetupException {
    List<X509Certificate> certificates = new ArrayList<>();
    try {
      CertificateFactory factory = CertificateFactory.getInstance("X.509");
      for (Block block : blocks(what, text)) {
        if (block.label.equals("CERTIFICATE")) {
          certificates.add((X509Certificate) factory.generateCertificate(new ByteArrayInputStream(block.der)));
        }
      }
    } catch (CertificateException e) {
      throw new SetupException(what + " holds a certificate that cannot be read: " + e.getMessage());
    }
    if (certificates.isEmpty()) {
      throw new SetupException(what + " holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
    }
    return certificates;
  }

  /** The one private key in {@code text}: RSA or EC, in PKCS#8, PKCS#1 or SEC1. */
  public static PrivateKey privateKey(String what, byte[] text) throws SetupException {
    for (Block block : blocks(what, text)) {
      try {
        switch (block.label) {
          case "PRIVATE KEY":
            return pkcs8(block.der);
          case "RSA PRIVATE KEY":
            return KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(pkcs8(RSA_ENCRYPTION, Der.element(Der.NULL), block.der)));
          case "EC PRIVATE KEY":
            return KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(pkcs8(EC_PUBLIC_KEY, curveOf(block.der), block.der)));
          case "ENCRYPTED PRIVATE KEY":
            throw new SetupException(what + " holds an encrypted key: give it unencrypted, as a Kubernetes TLS secret holds it");
          default:
            // a certificate or parameters beside the key: not what is looked for here
        }
      } catch (GeneralSecurityException | Der.KeyFormatException e) {
        throw new SetupException(what + " holds a " + block.label + " that cannot be read: " + e.getMessage());
      }
    }
    throw new SetupException(what + " holds no PEM private key (PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY)");
  }

  /** Whether {@code key} is the private key of {@code certificate}: a probe it signs verifies with the certificate's public key. */
  public static boolean isKeyOf(X509Certificate certificate, PrivateKey key) {
    String algorithm = key.getAlgorithm().equals("EC") ? "SHA256withECDSA" : "SHA256withRSA";
    byte[] probe = new byte[32];
    new SecureRandom().nextBytes(probe);
    try {
      Signature signer = Signature.getInstance(algorithm);
      signer.initSign(key);
      signer.update(probe);
      byte[] signature = signer.sign();
      Signature verifier = Signature.getInstance(algorithm);
      verifier.initVerify(certificate.getPublicKey());
      verifier.update(probe);
      return verifier.verify(signature);
    } catch (GeneralSecurityException | RuntimeException e) {
      return false;
    }
  }

  /** A PKCS#8 key of either algorithm, by the algorithm it names. */
  private static PrivateKey pkcs8(byte[] der) throws GeneralSecurityException, Der.KeyFormatException {
    List<Der.Element> fields = Der.read(der).children();
    if (fields.size() < 3 || fields.get(1).tag() != Der.SEQUENCE) {
      throw new Der.KeyFormatException("not a PKCS#8 key");
    }
    byte[] algorithm = fields.get(1).children().get(0).whole();
    String name = Arrays.equals(algorithm, Der.oid(EC_PUBLIC_KEY)) ? "EC" : Arrays.equals(algorithm, Der.oid(RSA_ENCRYPTION)) ? "RSA" : null;
    if (name == null) {
      throw new Der.KeyFormatException("a key of an algorithm other than RSA or EC");
    }
    return KeyFactory.getInstance(name).generatePrivate(new PKCS8EncodedKeySpec(der));
  }

  /** PKCS#8 around a PKCS#1 or SEC1 key: its version, the algorithm and its parameters, the key. */
  private static byte[] pkcs8(String algorithm, byte[] parameters, byte[] key) {
    return Der.element(
        Der.SEQUENCE,
        Der.element(Der.INTEGER, new byte[] {0}),
        Der.element(Der.SEQUENCE, Der.oid(algorithm), parameters),
        Der.element(Der.OCTET_STRING, key));
  }

  /** The curve a SEC1 key names in its {@code [0]} parameters, as a whole OID element. */
  private static byte[] curveOf(byte[] sec1) throws Der.KeyFormatException {
    for (Der.Element field : Der.read(sec1).children()) {
      if (field.tag() == Der.CONTEXT_0) {
        List<Der.Element> parameters = field.children();
        if (parameters.size() == 1 && parameters.get(0).tag() == Der.OID) {
          return parameters.get(0).whole();
        }
      }
    }
    throw new Der.KeyFormatException("an EC key that names no curve");
  }

  private static List<Block> blocks(String what, byte[] text) throws SetupException {
    List<Block> blocks = new ArrayList<>();
    Matcher matcher = BLOCK.matcher(new String(text, StandardCharsets.US_ASCII));
    while (matcher.find()) {
      try {
        blocks.add(new Block(matcher.group(1), Base64.getMimeDecoder().decode(matcher.group(2))));
      } catch (IllegalArgumentException e) {
        throw new SetupException(what + " holds a " + matcher.group(1) + " block that is not base64");
      }
    }
    return blocks;
  }
}
