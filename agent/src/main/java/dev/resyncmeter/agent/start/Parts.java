package dev.resyncmeter.agent.start;

import dev.resyncmeter.agent.api.Library;
import dev.resyncmeter.agent.api.Part;
import dev.resyncmeter.agent.clientjava.ClientJava;
import dev.resyncmeter.agent.fabric8.Fabric8;
import dev.resyncmeter.agent.josdk.Josdk;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Every part of the instrumentation, library by library, in the start line's order. Adding a library
 * is its folder (its {@link Library}, its {@link Part}s, their units) and one line here. Plain loops,
 * no lambdas: {@code premain} reads this.
 */
public final class Parts {

  public static final List<Part> ALL = join(ClientJava.PARTS, Fabric8.PARTS, Josdk.PARTS);

  private Parts() {}

  @SafeVarargs
  private static List<Part> join(List<Part>... libraries) {
    List<Part> all = new ArrayList<>();
    for (List<Part> parts : libraries) {
      all.addAll(parts);
    }
    return List.copyOf(all);
  }

  /** The libraries, in order. */
  public static List<Library> libraries() {
    return Library.of(ALL);
  }

  /** The parts' component names, the names {@code disable=} takes. */
  public static List<String> components() {
    List<String> names = new ArrayList<>();
    for (Part part : ALL) {
      names.add(part.component());
    }
    return names;
  }

  /** The part whose component is {@code component}, or null. */
  public static Part withComponent(String component) {
    for (Part part : ALL) {
      if (part.component().equals(component)) {
        return part;
      }
    }
    return null;
  }

  /** All parts but those whose component {@code disabled} holds. */
  public static List<Part> without(Set<String> disabled) {
    List<Part> parts = new ArrayList<>();
    for (Part part : ALL) {
      if (!disabled.contains(part.component())) {
        parts.add(part);
      }
    }
    return parts;
  }

  /** The classes {@code parts} weave by name, as the JVM names them ({@code io/kubernetes/...}). */
  public static Set<String> wovenByName(List<Part> parts) {
    Set<String> names = new HashSet<>();
    for (Part part : parts) {
      for (String name : part.wovenByName()) {
        names.add(name.replace('.', '/'));
      }
    }
    return Set.copyOf(names);
  }

  /** The library of a class some part weaves by name ({@code io.kubernetes...}), or null. */
  public static Library libraryWeaving(String className) {
    for (Part part : ALL) {
      if (part.wovenByName().contains(className)) {
        return part.library();
      }
    }
    return null;
  }
}
