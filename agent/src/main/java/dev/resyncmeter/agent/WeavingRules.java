package dev.resyncmeter.agent;

import java.util.ArrayList;
import java.util.List;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * What the instrumentation units weave, rule by rule: the types a rule matches (and, first and
 * cheaper, the class loaders it looks in) and the transformer that weaves them. {@link Weaver}
 * applies every rule that matches a class, in the order they were given.
 */
public final class WeavingRules {

  record Rule(
      ElementMatcher<? super ClassLoader> loaders,
      ElementMatcher<? super TypeDescription> types,
      AgentBuilder.Transformer transformer) {}

  private final List<Rule> rules = new ArrayList<>();

  /** The types of any class loader that {@code types} matches. */
  public Matched type(ElementMatcher<? super TypeDescription> types) {
    return new Matched(null, types);
  }

  /** The types {@code types} matches, among the classes of the loaders {@code loaders} matches. */
  public Matched type(ElementMatcher<? super TypeDescription> types, ElementMatcher<? super ClassLoader> loaders) {
    return new Matched(loaders, types);
  }

  List<Rule> rules() {
    return List.copyOf(rules);
  }

  /** Types matched, waiting for the transformer that weaves them. */
  public final class Matched {
    private final ElementMatcher<? super ClassLoader> loaders;
    private final ElementMatcher<? super TypeDescription> types;

    private Matched(ElementMatcher<? super ClassLoader> loaders, ElementMatcher<? super TypeDescription> types) {
      this.loaders = loaders;
      this.types = types;
    }

    public WeavingRules transform(AgentBuilder.Transformer transformer) {
      rules.add(new Rule(loaders, types, transformer));
      return WeavingRules.this;
    }
  }
}
