package dev.resyncmeter.agent.api;

import dev.resyncmeter.agent.runtime.AgentMetrics;
import dev.resyncmeter.agent.runtime.UnitSwitch;
import dev.resyncmeter.collector.Observability;
import java.util.ArrayList;
import java.util.List;

/**
 * One part of the instrumentation, described once: its names, its library, the classes it weaves by
 * name, the handler interface whose implementations it weaves wherever they are after an attach,
 * what the other parts' counts learn from it, its switch, and the class that weaves it (its matchers, layout checks and
 * advice). The agent derives from these every list about its parts: the start line, the classes the
 * start gate holds back, the names the weaving ignores, {@code resync_meter_instrumentation_active}
 * and the names {@code disable=} takes. A library declares its parts in its own folder
 * ({@code clientjava/ClientJava}); the agent's start lists the libraries.
 *
 * <p>{@code premain} reads parts: a part names no type of ByteBuddy's, and its weaving class is
 * loaded only when ByteBuddy must weave a class ({@link #weaving()}).
 */
public final class Part {

  /**
   * What other parts' counts learn from a part. While the part is off (disabled, or switched off),
   * the collector is told that this can no longer be seen, and those counts say {@code unknown} (or
   * {@code changed}) instead of something exact but wrong.
   */
  public enum Observation implements Runnable {
    /** No observation of its own that another part needs. */
    NONE,
    /** Workqueue adds: a no-op update's outcome (enqueued or dropped), the trigger of a reconcile. */
    QUEUE_ADDS,
    /** Handler calls: the trigger of a queue add made in one ({@code change}, {@code *_noop}) rather than {@code other}. */
    HANDLER_CALLS,
    /** API writes: a reconcile's effect ({@code none} and {@code unchanged} need every write seen). */
    API_WRITES;

    /** Tells the collector that this is seen from now on (a class of the part was woven). */
    public void becameObservable() {
      if (this == QUEUE_ADDS) {
        AgentMetrics.observability().queueAddsBecameObservable();
      }
    }

    /** Tells the collector that this is no longer seen. */
    @Override
    public void run() {
      lostTo(AgentMetrics.observability());
    }

    /** Tells {@code observability} that this is no longer seen. */
    public void lostTo(Observability observability) {
      switch (this) {
        case QUEUE_ADDS -> observability.queueAddsBecameUnobservable();
        case HANDLER_CALLS -> observability.handlerCallsBecameUnobservable();
        case API_WRITES -> observability.writesBecameUnobservable();
        case NONE -> {
          // nothing another part needs
        }
      }
    }
  }

  private final Library library;
  private final String name;
  private final String weaving;
  private final List<String> wovenByName;
  private final String handlerInterface;
  private final Observation observation;
  private final UnitSwitch unitSwitch;

  private Part(Builder builder) {
    this.library = builder.library;
    this.name = builder.name;
    this.weaving = builder.weaving;
    this.wovenByName = List.copyOf(builder.wovenByName);
    this.handlerInterface = builder.handlerInterface;
    this.observation = builder.observation;
    this.unitSwitch = new UnitSwitch(library.displayName() + " " + name, builder.component, observation, observation::becameObservable);
  }

  /**
   * A part of {@code library} named {@code name} on the start line ({@code informer}), {@code
   * component} in metrics, faults and {@code disable=} ({@code clientjava-informer}).
   */
  public static Builder of(Library library, String name, String component) {
    return new Builder(library, name, component);
  }

  public Library library() {
    return library;
  }

  /** Its name on the start line, among its library's parts ({@code informer}). */
  public String name() {
    return name;
  }

  /** Its {@code component} label value, and its name for {@code disable=} ({@code clientjava-informer}). */
  public String component() {
    return unitSwitch.component();
  }

  /** Whether it counts; the switch its bridges ask. */
  public UnitSwitch unitSwitch() {
    return unitSwitch;
  }

  /**
   * The library classes it weaves by name (their names with dots), handlers among them only where it
   * advises more than their handler methods: each must be woven from its first instance on, so the
   * start gate holds their loading back until the weaving is ready, and the weaving selects them by
   * this list.
   */
  public List<String> wovenByName() {
    return wovenByName;
  }

  /**
   * The handler interface whose implementations it weaves, in any package, after an attach only
   * (started with the JVM it measures handler calls where the library makes them); null when none.
   */
  public String handlerInterface() {
    return handlerInterface;
  }

  public Observation observation() {
    return observation;
  }

  /**
   * Its weaving, loaded now: it loads ByteBuddy's matchers, so the weaving asks for it only when a
   * class was not woven ahead of time, on whichever thread defines that class.
   */
  public InstrumentationUnit weaving() throws ReflectiveOperationException {
    return (InstrumentationUnit) Class.forName(weaving, true, Part.class.getClassLoader()).getDeclaredConstructor().newInstance();
  }

  @Override
  public String toString() {
    return component();
  }

  /** Describes a part; {@link #build} makes it, and its switch, once. */
  public static final class Builder {
    private final Library library;
    private final String name;
    private final String component;
    private String weaving;
    private final List<String> wovenByName = new ArrayList<>();
    private String handlerInterface;
    private Observation observation = Observation.NONE;

    private Builder(Library library, String name, String component) {
      this.library = library;
      this.name = name;
      this.component = component;
    }

    /** The {@link InstrumentationUnit} that weaves it, by its class name (loaded when ByteBuddy must weave). */
    public Builder wovenBy(String instrumentationUnitClass) {
      this.weaving = instrumentationUnitClass;
      return this;
    }

    /** Library classes its weaving matches by name (not handlers). */
    public Builder byName(String... classNames) {
      wovenByName.addAll(List.of(classNames));
      return this;
    }

    /** The handler interface whose implementations its weaving matches, wherever they are, after an attach. */
    public Builder andEveryImplementationOf(String handlerInterface) {
      this.handlerInterface = handlerInterface;
      return this;
    }

    /** What other parts' counts learn from it. */
    public Builder othersCountOn(Observation observation) {
      this.observation = observation;
      return this;
    }

    public Part build() {
      if (weaving == null) {
        throw new IllegalStateException(component + " names no weaving");
      }
      return new Part(this);
    }
  }
}
