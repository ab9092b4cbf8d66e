package dev.resyncmeter.agent;

import net.bytebuddy.agent.builder.AgentBuilder;

/** One instrumented library part: its type matchers and the advice it weaves into them. */
public interface InstrumentationUnit {

  /** A short name for the start line and for fault counts, such as {@code client-java informer}. */
  String name();

  /** Whether the unit counts; exported as {@code resync_meter_instrumentation_active{component}}. */
  UnitSwitch unitSwitch();

  AgentBuilder install(AgentBuilder builder);
}
