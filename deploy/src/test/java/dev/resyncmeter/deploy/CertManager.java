package dev.resyncmeter.deploy;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.List;
import java.util.Map;

/**
 * cert-manager's {@code cert-manager.io/v1 Certificate}, for {@link Models}: no fabric8 model of
 * cert-manager is served here, so this one is written from cert-manager's CRD
 * ({@code certificates.cert-manager.io}, v1). It holds the spec's fields in common use, with the CRD's
 * enums and required fields; a field outside them is reported as unknown (add it here from the CRD).
 * The status is cert-manager's to write, never a manifest's.
 */
final class CertManager {

  private CertManager() {}

  record Certificate(
      @JsonProperty(required = true) String apiVersion,
      @JsonProperty(required = true) String kind,
      @JsonProperty(required = true) ObjectMeta metadata,
      @JsonProperty(required = true) Spec spec) {}

  record Spec(
      @JsonProperty(required = true) String secretName,
      @JsonProperty(required = true) IssuerRef issuerRef,
      String commonName,
      List<String> dnsNames,
      List<String> ipAddresses,
      List<String> uris,
      List<String> emailAddresses,
      Subject subject,
      String duration,
      String renewBefore,
      Integer renewBeforePercentage,
      Integer revisionHistoryLimit,
      Boolean isCA,
      List<Usage> usages,
      Boolean encodeUsagesInRequest,
      PrivateKey privateKey,
      SignatureAlgorithm signatureAlgorithm,
      SecretTemplate secretTemplate) {}

  record IssuerRef(@JsonProperty(required = true) String name, String kind, String group) {}

  record Subject(
      List<String> organizations,
      List<String> organizationalUnits,
      List<String> countries,
      List<String> provinces,
      List<String> localities,
      List<String> streetAddresses,
      List<String> postalCodes,
      String serialNumber) {}

  record PrivateKey(Algorithm algorithm, Integer size, Encoding encoding, RotationPolicy rotationPolicy) {}

  record SecretTemplate(Map<String, String> annotations, Map<String, String> labels) {}

  enum Algorithm { RSA, ECDSA, Ed25519 }

  enum Encoding { PKCS1, PKCS8 }

  enum RotationPolicy { Never, Always }

  enum SignatureAlgorithm { SHA256WithRSA, SHA384WithRSA, SHA512WithRSA, ECDSAWithSHA256, ECDSAWithSHA384, ECDSAWithSHA512, PureEd25519 }

  /** The key usages and extended key usages the CRD accepts, as written in a manifest. */
  enum Usage {
    @JsonProperty("signing") SIGNING,
    @JsonProperty("digital signature") DIGITAL_SIGNATURE,
    @JsonProperty("content commitment") CONTENT_COMMITMENT,
    @JsonProperty("key encipherment") KEY_ENCIPHERMENT,
    @JsonProperty("key agreement") KEY_AGREEMENT,
    @JsonProperty("data encipherment") DATA_ENCIPHERMENT,
    @JsonProperty("cert sign") CERT_SIGN,
    @JsonProperty("crl sign") CRL_SIGN,
    @JsonProperty("encipher only") ENCIPHER_ONLY,
    @JsonProperty("decipher only") DECIPHER_ONLY,
    @JsonProperty("any") ANY,
    @JsonProperty("server auth") SERVER_AUTH,
    @JsonProperty("client auth") CLIENT_AUTH,
    @JsonProperty("code signing") CODE_SIGNING,
    @JsonProperty("email protection") EMAIL_PROTECTION,
    @JsonProperty("s/mime") SMIME,
    @JsonProperty("ipsec end system") IPSEC_END_SYSTEM,
    @JsonProperty("ipsec tunnel") IPSEC_TUNNEL,
    @JsonProperty("ipsec user") IPSEC_USER,
    @JsonProperty("timestamping") TIMESTAMPING,
    @JsonProperty("ocsp signing") OCSP_SIGNING,
    @JsonProperty("microsoft sgc") MICROSOFT_SGC,
    @JsonProperty("netscape sgc") NETSCAPE_SGC
  }
}
