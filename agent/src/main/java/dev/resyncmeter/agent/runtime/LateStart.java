package dev.resyncmeter.agent.runtime;

/**
 * Whether the agent was attached to a running JVM. Then informers, queues and controllers made
 * before it came exist without the state their constructors would have given the agent, and each
 * unit finds them where they are next used. Started with {@code -javaagent}, none of that runs.
 */
public final class LateStart {

  private static volatile boolean attached;

  private LateStart() {}

  public static boolean attached() {
    return attached;
  }

  /** Before the weaving: the first advice that runs already knows. */
  public static void attachedNow() {
    attached = true;
  }
}
