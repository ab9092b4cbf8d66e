package dev.resyncmeter.agent.api;

import dev.resyncmeter.agent.runtime.IdentityWeakMap;
import dev.resyncmeter.agent.runtime.UnitSwitch;
/**
 * Whether advice can run where a class is defined: woven advice calls the agent's classes, so a class
 * loader that cannot reach them gets none. And the test-only switch that makes one class's weaving
 * fail. Free of ByteBuddy: classes woven ahead of time ask it too.
 */
public final class AdviceReach {

  /** Test-only: the weaving of this one class fails, as a bug in the agent or ByteBuddy would make it fail. */
  public static final String FAIL_WEAVING_PROPERTY = "resyncmeter.test.failWeaving";

  private static final String FAIL_WEAVING = System.getProperty(FAIL_WEAVING_PROPERTY, "");
  private static final IdentityWeakMap<Boolean> SEES_AGENT = new IdentityWeakMap<>();

  private AdviceReach() {}

  /** Whether a test made the weaving of {@code className} fail. */
  public static boolean failsWeaving(String className) {
    return className.equals(FAIL_WEAVING);
  }

  /** Whether classes of {@code loader} reach this very agent (the system class path, by delegation). */
  public static boolean seesAgent(ClassLoader loader) {
    if (loader == null) {
      return false;
    }
    Boolean known = SEES_AGENT.get(loader);
    if (known == null) {
      // Outside any map lock of ours: loadClass is the host's code and may take the host's locks.
      try {
        known = Class.forName(UnitSwitch.class.getName(), false, loader) == UnitSwitch.class;
      } catch (ClassNotFoundException | LinkageError e) {
        known = false;
      }
      SEES_AGENT.put(loader, known);
    }
    return known;
  }

  /**
   * Whether advice woven ahead of time into {@code className} (whose layout was checked then) applies
   * to it in {@code loader}: not when the loader cannot see the agent, nor when a test makes that
   * class's weaving fail. ByteBuddy then weaves the class, and the transformers decide as always.
   */
  public static boolean appliesWovenAhead(String className, ClassLoader loader) {
    return !failsWeaving(className) && seesAgent(loader);
  }
}
