package dev.resyncmeter.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Where a run's results go: {@code <name>.json/.md} and, the same, {@code latest.json/.md}. */
final class ResultFiles {

  private ResultFiles() {}

  /** Writes {@code <name>.json/.md} and {@code latest.json/.md} into {@code dir}; returns the JSON path. */
  static Path write(Results results, Path dir, String name) throws IOException {
    Files.createDirectories(dir);
    String json = JsonReport.of(results) + "\n";
    String md = MarkdownReport.of(results);
    Path jsonFile = Files.writeString(dir.resolve(name + ".json"), json);
    Files.writeString(dir.resolve(name + ".md"), md);
    Files.writeString(dir.resolve("latest.json"), json);
    Files.writeString(dir.resolve("latest.md"), md);
    return jsonFile;
  }
}
