package dev.resyncmeter.agent.start;

import dev.resyncmeter.agent.api.Library;
import dev.resyncmeter.agent.api.Part;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** The wording of the agent's start line: what it instruments, and what it was told to leave alone. */
final class StartLine {

  static final String ATTACHED =
      "attached to a running JVM: counting starts now; work queued before is counted as trigger=\"unknown\", reconciles running now are not counted";

  /** Said of a library version the agent was not built with: its classes are woven when they load. */
  static final String NOT_WOVEN_AHEAD = "not woven ahead of time: ByteBuddy weaves it at run time";

  /** Where the agent's build lists the library versions it wove ahead of time (PrewovenClasses). */
  private static final String VERSIONS_WOVEN_AHEAD = "/dev/resyncmeter/agent/weaving/prewoven/versions";

  private StartLine() {}

  /**
   * The start line's account of the parts: each instrumented library {@code loader} holds, with its
   * version and the names of its parts that are woven; then the parts the user disabled, by the names
   * {@code disable=} took.
   */
  static String parts(List<Part> woven, ClassLoader loader) {
    List<String> found = new ArrayList<>();
    List<String> wovenAhead = versionsWovenAhead();
    boolean anyLibrary = false;
    for (Library library : Parts.libraries()) {
      String version = library.version(loader);
      if (version == null) {
        continue;
      }
      anyLibrary = true;
      List<String> names = new ArrayList<>();
      for (Part part : woven) {
        if (part.library() == library) {
          names.add(part.name());
        }
      }
      if (!names.isEmpty()) {
        String ahead = wovenAhead.contains(library.label() + " " + version) ? "" : "; " + NOT_WOVEN_AHEAD;
        found.add(library.displayName() + " " + version + " (" + String.join(", ", names) + ahead + ")");
      }
    }
    String line;
    if (!anyLibrary) {
      // Not an error: a Spring Boot jar, a servlet container or a plugin loader brings it later.
      line = inWords(Parts.libraries()) + " are not on the system class path: each is instrumented when a class loader loads it";
    } else {
      line = "instrumenting " + (found.isEmpty() ? "nothing" : String.join(", ", found));
    }
    List<String> disabled = new ArrayList<>();
    for (Part part : Parts.ALL) {
      if (!woven.contains(part)) {
        disabled.add(part.component());
      }
    }
    return disabled.isEmpty() ? line : line + "; disabled: " + String.join(", ", disabled);
  }

  /**
   * The library versions whose classes the agent's build wove ({@code label version}), as that build
   * listed them beside the woven classes; none without that list.
   */
  static List<String> versionsWovenAhead() {
    List<String> versions = new ArrayList<>();
    try (InputStream in = StartLine.class.getResourceAsStream(VERSIONS_WOVEN_AHEAD)) {
      if (in != null) {
        for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
          if (!line.isBlank()) {
            versions.add(line.trim());
          }
        }
      }
    } catch (IOException unreadable) {
      // then every version is said to be woven at run time, which is true of what was not read
    }
    return versions;
  }

  /** {@code client-java, fabric8 and JOSDK}. */
  private static String inWords(List<Library> libraries) {
    StringBuilder words = new StringBuilder();
    for (int i = 0; i < libraries.size(); i++) {
      words.append(i == 0 ? "" : i == libraries.size() - 1 ? " and " : ", ").append(libraries.get(i).displayName());
    }
    return words.toString();
  }
}
