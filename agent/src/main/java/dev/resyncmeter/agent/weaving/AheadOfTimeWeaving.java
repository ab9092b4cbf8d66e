package dev.resyncmeter.agent.weaving;

import dev.resyncmeter.agent.api.Library;
import dev.resyncmeter.agent.api.Part;
import dev.resyncmeter.agent.api.WeavingRules;
import java.io.IOException;
import java.io.InputStream;
import java.io.Writer;
import java.net.JarURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * A step of the agent's build: the library classes of the versions built against, woven by the
 * agent's own rules with the same {@link Weaver} the agent uses at run time, written where {@link
 * PrewovenClasses} finds them in the jar.
 */
public final class AheadOfTimeWeaving {

  private AheadOfTimeWeaving() {}

  /**
   * Weaves, with ByteBuddy, every class of the jars that hold a class one of {@code parts} weaves by
   * name, for which a rule of any part matches, into {@code folder} (emptied first), and fails when a
   * unit switched itself off doing so (the libraries of the build are versions the agent must know).
   */
  public static void weave(List<Part> parts, Path folder) throws Exception {
    if (Files.isDirectory(folder)) {
      try (var files = Files.list(folder)) {
        for (Path file : (Iterable<Path>) files::iterator) {
          Files.delete(file);
        }
      }
    }
    Files.createDirectories(folder);
    ClassLoader loader = AheadOfTimeWeaving.class.getClassLoader();
    Weaver weaver = new Weaving(parts, parts, "build").weaver(PrewovenClasses.NONE);
    NamePrefixes ignored = NamePrefixes.ignoredBy(parts);
    List<PrewovenClasses.Entry> entries = new ArrayList<>();
    for (String jar : jarsWovenByName(parts, loader)) {
      try (JarFile file = new JarFile(jar)) {
        for (Enumeration<JarEntry> e = file.entries(); e.hasMoreElements(); ) {
          JarEntry entry = e.nextElement();
          String path = entry.getName();
          if (!path.endsWith(".class") || path.startsWith("META-INF/") || path.endsWith("module-info.class")) {
            continue;
          }
          String name = path.substring(0, path.length() - ".class".length()).replace('/', '.');
          if (ignored.ignores(name)) {
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
          entries.add(new PrewovenClasses.Entry(name, classFile.length, PrewovenClasses.crc32c(classFile), PrewovenClasses.fnv1a(classFile), ids, wovenFile));
        }
      }
    }
    for (Part part : parts) {
      if (part.unitSwitch().isOff()) {
        throw new IllegalStateException(part.component() + " switched itself off weaving the build's libraries ahead of time");
      }
    }
    try (Writer index = Files.newBufferedWriter(folder.resolve(PrewovenClasses.INDEX_FILE), StandardCharsets.UTF_8)) {
      for (PrewovenClasses.Entry entry : entries) {
        index.write(entry.line() + "\n");
      }
    }
    // The library versions woven: the start line says of any other that ByteBuddy weaves it at run time.
    try (Writer versions = Files.newBufferedWriter(folder.resolve(PrewovenClasses.VERSIONS_FILE), StandardCharsets.UTF_8)) {
      for (Library library : Library.of(parts)) {
        String version = library.version(loader);
        if (version != null) {
          versions.write(library.label() + " " + version + "\n");
        }
      }
    }
    System.out.println("[resync-meter build] " + entries.size() + " library classes woven ahead of time into " + folder);
  }

  /** The jars (paths) of the build's class path that hold a class some part weaves by name. */
  private static TreeSet<String> jarsWovenByName(List<Part> parts, ClassLoader loader) throws IOException, java.net.URISyntaxException {
    TreeSet<String> jars = new TreeSet<>();
    for (Part part : parts) {
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
