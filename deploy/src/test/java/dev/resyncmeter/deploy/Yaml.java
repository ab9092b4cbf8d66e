package dev.resyncmeter.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** YAML documents as Jackson trees, and the objects of a rendered kustomization. */
final class Yaml {

  static final ObjectMapper MAPPER = new ObjectMapper(new YAMLFactory());

  private Yaml() {}

  static List<JsonNode> documents(String text) throws IOException {
    List<JsonNode> documents = new ArrayList<>();
    try (YAMLParser parser = new YAMLFactory().createParser(text)) {
      for (JsonNode document : MAPPER.readValues(parser, JsonNode.class).readAll()) {
        if (document != null && !document.isNull() && !document.isMissingNode()) {
          documents.add(document);
        }
      }
    }
    return documents;
  }

  static List<JsonNode> documents(Path file) throws IOException {
    return documents(Files.readString(file));
  }

  static JsonNode one(List<JsonNode> objects, String kind, String name) {
    return objects.stream()
        .filter(o -> kind.equals(o.path("kind").asText()) && name.equals(o.path("metadata").path("name").asText()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + kind + " " + name + " in " + objects));
  }

  static ObjectNode copy(JsonNode node) {
    return (ObjectNode) node.deepCopy();
  }
}
