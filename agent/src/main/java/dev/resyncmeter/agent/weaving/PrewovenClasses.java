package dev.resyncmeter.agent.weaving;

import dev.resyncmeter.agent.api.AdviceReach;
import dev.resyncmeter.agent.api.WeavingRules;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * The library classes woven when the agent was built, for the library versions it was built against:
 * the woven class file of each class a rule matched, looked up by the name, length and two checksums
 * (CRC32C and 64-bit FNV-1a) of the class file the host defines. ByteBuddy then runs for none of them:
 * its classes are a thousand loaded and verified, its weaving runs interpreted at first, about half a
 * second of a start on two cores. A class file of another version, or one another agent changed first,
 * or matched by other rules than at build time (a part disabled) is not found, and ByteBuddy weaves it.
 *
 * <p>Built by {@link AheadOfTimeWeaving} in the agent's build, from the rules of every part, with
 * ByteBuddy and the same weaving the agent would do at run time, done earlier.
 * {@code PrewovenClassesTest} weaves each again and compares.
 */
final class PrewovenClasses {

  /** The folder of the woven class files and their index, beside this class. */
  static final String FOLDER = "prewoven/";
  static final String INDEX_FILE = "index";
  static final String INDEX = FOLDER + INDEX_FILE;
  /** The library versions woven, a {@code label version} line each; the start line reads it (StartLine). */
  static final String VERSIONS_FILE = "versions";

  /** None: every class is woven by ByteBuddy. */
  static final PrewovenClasses NONE = new PrewovenClasses(Map.of());

  /** The class file of {@code name} that was woven, and the parts that wove it (their components). */
  record Entry(String name, int length, long crc, long fnv, List<String> rules, String file) {

    String line() {
      return name + " " + length + " " + Long.toHexString(crc) + " " + Long.toHexString(fnv) + " " + String.join(",", rules) + " " + file;
    }

    static Entry parse(String line) {
      String[] fields = line.split(" ");
      return new Entry(
          fields[0], Integer.parseInt(fields[1]), Long.parseUnsignedLong(fields[2], 16), Long.parseUnsignedLong(fields[3], 16), List.of(fields[4].split(",")), fields[5]);
    }
  }

  private final Map<String, List<Entry>> byName;

  private PrewovenClasses(Map<String, List<Entry>> byName) {
    this.byName = byName;
  }

  /** The classes woven into this agent's jar; none when it holds no index (a build without the step). */
  static PrewovenClasses load() throws IOException {
    InputStream in = PrewovenClasses.class.getResourceAsStream(INDEX);
    if (in == null) {
      return NONE;
    }
    Map<String, List<Entry>> byName = new HashMap<>();
    try (BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      for (String line = lines.readLine(); line != null; line = lines.readLine()) {
        if (!line.isBlank()) {
          Entry entry = Entry.parse(line);
          byName.computeIfAbsent(entry.name, n -> new ArrayList<>(1)).add(entry);
        }
      }
    }
    return new PrewovenClasses(byName);
  }

  /** How many class files are woven ahead of time. */
  int size() {
    int size = 0;
    for (List<Entry> entries : byName.values()) {
      size += entries.size();
    }
    return size;
  }

  /**
   * The woven class file for this very class file, selected by these parts ({@code rules}, a part's
   * selection each) as at build time, when the advice applies in {@code loader}; null when ByteBuddy
   * must weave it. What a part tells the others once its class is woven is told here, as the weaving
   * would.
   */
  byte[] woven(String name, byte[] classFile, List<WeavingRules.Rule> rules, ClassLoader loader) {
    List<Entry> entries = byName.get(name);
    if (entries == null) {
      return null;
    }
    Entry found = null;
    long crc = -1;
    long fnv = 0;
    for (Entry entry : entries) {
      if (entry.length == classFile.length) {
        if (crc < 0) {
          crc = crc32c(classFile);
          fnv = fnv1a(classFile);
        }
        if (entry.crc == crc && entry.fnv == fnv) {
          found = entry;
          break;
        }
      }
    }
    if (found == null || found.rules.size() != rules.size()) {
      return null;
    }
    for (int i = 0; i < rules.size(); i++) {
      if (!rules.get(i).id().equals(found.rules.get(i))) {
        return null;
      }
    }
    if (!AdviceReach.appliesWovenAhead(name, loader)) {
      return null;
    }
    byte[] woven;
    try (InputStream in = PrewovenClasses.class.getResourceAsStream(FOLDER + found.file)) {
      if (in == null) {
        return null; // ByteBuddy weaves it, as if it were not in the index
      }
      woven = in.readAllBytes();
    } catch (IOException unreadable) {
      return null;
    }
    for (WeavingRules.Rule rule : rules) {
      rule.unit().woven();
    }
    return woven;
  }

  static long crc32c(byte[] bytes) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, bytes.length);
    return crc.getValue();
  }

  static long fnv1a(byte[] bytes) {
    long hash = 0xcbf29ce484222325L;
    for (byte b : bytes) {
      hash = (hash ^ (b & 0xFF)) * 0x100000001b3L;
    }
    return hash;
  }

}
