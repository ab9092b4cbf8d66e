package dev.resyncmeter.agent.api;

/**
 * The weaving of one part of the instrumentation ({@link Part}): its type matchers, the layout its
 * advice expects, and the advice it weaves into them. Made when ByteBuddy must weave, by the public no-argument
 * constructor. Its advice and bridge classes must load without the library beside them (a Quarkus or
 * Spring Boot host keeps it in a loader the agent cannot see): signatures take {@code Object}, bodies
 * cast where they use it. The rules, and the test that enforces them: {@code docs/developing.md}.
 */
public interface InstrumentationUnit {

  WeavingRules install(WeavingRules rules);
}
