package dev.resyncmeter.collector;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ResourceVersionJsonTest {

  @Test
  void readsTheTopLevelObjectsVersionWhereverMetadataSits() {
    assertThat(ResourceVersionJson.of("{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"123\"},\"data\":{}}")).isEqualTo("123");
    assertThat(ResourceVersionJson.of("{\"data\":{\"metadata\":{\"resourceVersion\":\"9\"}},\"metadata\":{\"resourceVersion\":\"5\"}}")).isEqualTo("5");
    assertThat(ResourceVersionJson.of(" {\n  \"metadata\" : {\n    \"annotations\": {\"x\": \"y\"},\n    \"resourceVersion\" : \"77\"\n  }\n}")).isEqualTo("77");
  }

  @Test
  void aVersionDeeperDownOrInsideAStringIsNotTheObjects() {
    // Jackson's field order puts annotations and managedFields before resourceVersion
    String json =
        "{\"metadata\":{\"annotations\":{\"last-applied\":\"{\\\"metadata\\\":{\\\"resourceVersion\\\":\\\"1\\\"}}\",\"resourceVersion\":\"2\"},"
            + "\"managedFields\":[{\"fieldsV1\":{\"f:metadata\":{}},\"time\":null}],\"ownerReferences\":[{\"resourceVersion\":\"3\"}],\"resourceVersion\":\"4\"}}";
    assertThat(ResourceVersionJson.of(json)).isEqualTo("4");
  }

  @Test
  void noVersionGivesNull() {
    assertThat(ResourceVersionJson.of("{\"metadata\":{\"name\":\"a\"},\"data\":{}}")).isNull();
    assertThat(ResourceVersionJson.of("{\"data\":{\"v\":\"1\"}}")).isNull();
    assertThat(ResourceVersionJson.of("{}")).isNull();
    assertThat(ResourceVersionJson.of("{\"metadata\":{}}")).isNull();
    assertThat(ResourceVersionJson.of("{\"metadata\":{\"resourceVersion\":null}}")).isNull();
    assertThat(ResourceVersionJson.of("[{\"metadata\":{\"resourceVersion\":\"1\"}}]")).isNull();
    assertThat(ResourceVersionJson.of((String) null)).isNull();
  }

  @Test
  void cutOffOrMalformedTextGivesNull() {
    byte[] whole = "{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"123\"}}".getBytes(StandardCharsets.UTF_8);
    assertThat(ResourceVersionJson.of(whole, 30)).isNull();
    assertThat(ResourceVersionJson.of(whole, whole.length)).isEqualTo("123");
    assertThat(ResourceVersionJson.of("{\"metadata\":{\"name\" \"a\",\"resourceVersion\":\"1\"}}")).isNull();
    assertThat(ResourceVersionJson.of("not json")).isNull();
    assertThat(ResourceVersionJson.of("{\"metadata\":{\"name\":\"unterminated}}")).isNull();
  }

  @Test
  void escapesInStringsBeforeTheVersionAreSkippedWhole() {
    assertThat(ResourceVersionJson.of("{\"metadata\":{\"name\":\"a\\\"b\\\\\",\"labels\":{\"k\\u0041\":\"v\"},\"resourceVersion\":\"8\"}}")).isEqualTo("8");
  }

  @Test
  void anAnswerNamesItsObjectByNamespaceNameUidAndVersion() {
    byte[] json = "{\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"a\",\"namespace\":\"ns\",\"labels\":{\"uid\":\"x\"},\"uid\":\"u-1\",\"resourceVersion\":\"42\"},\"data\":{}}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    assertThat(ResourceVersionJson.objectOf(json, json.length)).isEqualTo(new WrittenObject("ns", "a", "u-1", "42"));
    assertThat(ResourceVersionJson.objectOf(json, 30)).as("cut off before its metadata ends").isNull();
  }
}
