package dev.resyncmeter.agent;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import net.bytebuddy.agent.builder.AgentBuilder;

/**
 * What the instrumentation units weave, rule by rule: the classes a rule matches, by name or as the
 * implementations of a handler interface (and, first and cheaper, the class loaders it looks in), and
 * the transformer that weaves them. Matching reads names and class file headers only. {@link Weaver}
 * applies every rule that matches a class, in the order they were given.
 */
public final class WeavingRules {

  /**
   * One rule: the classes named {@code names} (Java names), and, when {@code handlerInterface} is not
   * null, every implementation of it (classes, not interfaces) among the classes of the loaders {@code
   * loaders} accepts. A part's selection ({@link #of(Part)}) has no transformer.
   */
  record Rule(String id, Set<String> names, String handlerInterface, Predicate<ClassLoader> loaders, AgentBuilder.Transformer transformer) {

    /** Whether it may match an implementation of its handler interface among the classes of {@code loader}. */
    boolean looksIn(ClassLoader loader) {
      return handlerInterface != null && (loaders == null || loaders.test(loader));
    }

    /**
     * What a part weaves, from its own description and without building its weaving: its classes by
     * name, and its handler interface's implementations where a loader sees that interface. Its id is
     * the part's component.
     */
    static Rule of(Part part) {
      String handlerInterface = part.handlerInterface();
      return new Rule(
          part.component(),
          Set.copyOf(part.wovenByName()),
          handlerInterface,
          handlerInterface == null ? null : LibraryPresence.ofClass(handlerInterface),
          null);
    }
  }

  private final List<Rule> rules = new ArrayList<>();
  private String part = "rule";
  private int inPart;

  /** The rules given from now on are {@code component}'s: their ids are {@code component#0}, {@code #1}... */
  WeavingRules forPart(String component) {
    part = component;
    inPart = 0;
    return this;
  }

  /** The classes of these names (Java names), in any class loader. */
  public Matched type(String... names) {
    return new Matched(Set.of(names), null, null);
  }

  /** The classes, not interfaces, that implement {@code handlerInterface}, among the classes of the loaders {@code loaders} accepts. */
  public Matched implementationsOf(String handlerInterface, Predicate<ClassLoader> loaders) {
    return new Matched(Set.of(), handlerInterface, loaders);
  }

  List<Rule> rules() {
    return List.copyOf(rules);
  }

  /** Classes matched, waiting for the transformer that weaves them. */
  public final class Matched {
    private final Set<String> names;
    private final String handlerInterface;
    private final Predicate<ClassLoader> loaders;

    private Matched(Set<String> names, String handlerInterface, Predicate<ClassLoader> loaders) {
      this.names = names;
      this.handlerInterface = handlerInterface;
      this.loaders = loaders;
    }

    public WeavingRules transform(AgentBuilder.Transformer transformer) {
      rules.add(new Rule(part + "#" + inPart++, names, handlerInterface, loaders, transformer));
      return WeavingRules.this;
    }
  }
}
