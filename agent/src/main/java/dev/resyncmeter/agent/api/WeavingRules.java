package dev.resyncmeter.agent.api;

import dev.resyncmeter.agent.runtime.UnitSwitch;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import net.bytebuddy.agent.builder.AgentBuilder;

/**
 * What the instrumentation units weave, rule by rule: the classes a rule matches, by name or as the
 * implementations of a handler interface (and, first and cheaper, the class loaders it looks in), and
 * the transformer that weaves them. Matching reads names and class file headers only. The agent's
 * transformer applies every rule that matches a class, in the order they were given.
 */
public final class WeavingRules {

  /**
   * One rule: the classes named {@code names} (Java names), and, when {@code handlerInterface} is not
   * null, every implementation of it (classes, not interfaces) among the classes of the loaders {@code
   * loaders} accepts, for the part whose switch is {@code unit}. A part's selection ({@link #of(Part)})
   * has no transformer.
   */
  public record Rule(
      String id, Set<String> names, String handlerInterface, Predicate<ClassLoader> loaders, AgentBuilder.Transformer transformer, UnitSwitch unit) {

    /** Whether it may match an implementation of its handler interface among the classes of {@code loader}. */
    public boolean looksIn(ClassLoader loader) {
      return handlerInterface != null && (loaders == null || loaders.test(loader));
    }

    /**
     * What a part weaves, from its own description and without building its weaving: its classes by
     * name, and, with {@code handlerClasses} (after an attach), its handler interface's implementations
     * where a loader sees that interface. Its id is the part's component.
     */
    public static Rule of(Part part, boolean handlerClasses) {
      String handlerInterface = handlerClasses ? part.handlerInterface() : null;
      return new Rule(
          part.component(),
          Set.copyOf(part.wovenByName()),
          handlerInterface,
          handlerInterface == null ? null : LibraryPresence.ofClass(handlerInterface),
          null,
          part.unitSwitch());
    }
  }

  private final List<Rule> rules = new ArrayList<>();
  private final Part part;
  private int inPart;

  /** The rules of {@code part}: their ids are its component and {@code #0}, {@code #1}... */
  public WeavingRules(Part part) {
    this.part = part;
  }

  /** An advice transformer for a class of this part, applied only when the class has the layout it declares. */
  public LayoutCheckedAdvice layoutChecked() {
    return LayoutCheckedAdvice.of(part.unitSwitch());
  }

  /** The classes of these names (Java names), in any class loader. */
  public Matched type(String... names) {
    return new Matched(Set.of(names), null, null);
  }

  /** The classes, not interfaces, that implement {@code handlerInterface}, among the classes of the loaders {@code loaders} accepts. */
  public Matched implementationsOf(String handlerInterface, Predicate<ClassLoader> loaders) {
    return new Matched(Set.of(), handlerInterface, loaders);
  }

  public List<Rule> rules() {
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
      rules.add(new Rule(part.component() + "#" + inPart++, names, handlerInterface, loaders, transformer, part.unitSwitch()));
      return WeavingRules.this;
    }
  }
}
