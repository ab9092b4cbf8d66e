package dev.resyncmeter.agent;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Writer;
import java.net.JarURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.zip.CRC32C;

/**
 * The library classes woven when the agent was built, for the library versions it was built against:
 * the woven class file of each class a rule matched, looked up by the name, length and two checksums
 * (CRC32C and 64-bit FNV-1a) of the class file the host defines. ByteBuddy then runs for none of them:
 * its classes are a thousand loaded and verified, its weaving runs interpreted at first, about half a
 * second of a start on two cores. A class file of another version, or one another agent changed first,
 * or matched by other rules than at build time (a part disabled) is not found, and ByteBuddy weaves it.
 *
 * <p>Built by {@link #main} in the agent's build, from the rules of every part, with ByteBuddy and the
 * same {@link Weaver}: the same weaving the agent would do at run time, done earlier.
 * {@code PrewovenClassesTest} weaves each again and compares.
 */
final class PrewovenClasses {

  /** The folder of the woven class files and their index, beside this class. */
  static final String FOLDER = "prewoven/";
  static final String INDEX = FOLDER + "index";

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
      Part part = Parts.withComponent(rule.id());
      if (part != null) {
        part.unitSwitch().woven();
      }
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

  /**
   * Weaves, with ByteBuddy, every class of the jars that hold a class some part weaves by name, for
   * which a rule of any part matches, into {@code args[0]} (emptied first), and fails when a unit
   * switched itself off doing so (the libraries of the build are versions the agent must know).
   */
  public static void main(String[] args) throws Exception {
    Path folder = Path.of(args[0]);
    if (Files.isDirectory(folder)) {
      try (var files = Files.list(folder)) {
        for (Path file : (Iterable<Path>) files::iterator) {
          Files.delete(file);
        }
      }
    }
    Files.createDirectories(folder);
    ClassLoader loader = PrewovenClasses.class.getClassLoader();
    Weaving weaving = new Weaving(Parts.ALL, "build");
    Weaver weaver = weaving.weaver(NONE);
    List<Entry> entries = new ArrayList<>();
    for (String jar : jarsWovenByName(loader)) {
      try (JarFile file = new JarFile(jar)) {
        for (Enumeration<JarEntry> e = file.entries(); e.hasMoreElements(); ) {
          JarEntry entry = e.nextElement();
          String path = entry.getName();
          if (!path.endsWith(".class") || path.startsWith("META-INF/") || path.endsWith("module-info.class")) {
            continue;
          }
          String name = path.substring(0, path.length() - ".class".length()).replace('/', '.');
          if (Weaving.IGNORED.ignores(name)) {
            continue;
          }
          byte[] classFile;
          try (InputStream in = file.getInputStream(entry)) {
            classFile = in.readAllBytes();
          }
          List<WeavingRules.Rule> selected = weaver.selecting(loader, name, classFile);
          if (selected.isEmpty()) {
            continue;
          }
          byte[] woven = weaver.byteBuddy().weave(weaver.weavingRules(loader, name, classFile), null, loader, name, null, classFile);
          String wovenFile = entries.size() + ".woven";
          Files.write(folder.resolve(wovenFile), woven);
          List<String> ids = new ArrayList<>();
          for (WeavingRules.Rule rule : selected) {
            ids.add(rule.id());
          }
          entries.add(new Entry(name, classFile.length, crc32c(classFile), fnv1a(classFile), ids, wovenFile));
        }
      }
    }
    for (Part part : Parts.ALL) {
      if (part.unitSwitch().isOff()) {
        throw new IllegalStateException(part.component() + " switched itself off weaving the build's libraries ahead of time");
      }
    }
    try (Writer index = Files.newBufferedWriter(folder.resolve("index"), StandardCharsets.UTF_8)) {
      for (Entry entry : entries) {
        index.write(entry.line() + "\n");
      }
    }
    System.out.println("[resync-meter build] " + entries.size() + " library classes woven ahead of time into " + folder);
  }

  /** The jars (paths) of the build's class path that hold a class some part weaves by name. */
  private static TreeSet<String> jarsWovenByName(ClassLoader loader) throws IOException, java.net.URISyntaxException {
    TreeSet<String> jars = new TreeSet<>();
    for (Part part : Parts.ALL) {
      for (String name : part.wovenByName()) {
        URL url = loader.getResource(name.replace('.', '/') + ".class");
        if (url != null && url.getProtocol().equals("jar")) {
          jars.add(Path.of(((JarURLConnection) url.openConnection()).getJarFileURL().toURI()).toString());
        }
      }
    }
    return jars;
  }
}
