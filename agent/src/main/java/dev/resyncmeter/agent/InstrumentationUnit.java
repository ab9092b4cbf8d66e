package dev.resyncmeter.agent;

import net.bytebuddy.agent.builder.AgentBuilder;

/**
 * One instrumented library part: its type matchers and the advice it weaves into them. Its advice and
 * bridge classes must load without the library beside them (a Quarkus or Spring Boot host keeps it in
 * a loader the agent cannot see): signatures take {@code Object}, bodies cast where they use it. The
 * rules, and the test that enforces them: {@code docs/developing.md}.
 */
public interface InstrumentationUnit {

  /** A short name for the start line and for fault counts, such as {@code client-java informer}. */
  String name();

  /** Whether the unit counts; exported as {@code resync_meter_instrumentation_active{component}}. */
  UnitSwitch unitSwitch();

  AgentBuilder install(AgentBuilder builder);
}
