package dev.resyncmeter.agent.runtime;

/**
 * Whether one instrumentation unit is working. Every bridge call of the unit starts by asking
 * {@link #on()}. A unit that meets a library class it does not recognise switches off as a whole,
 * with one warning line: half an instrumentation would export wrong counts, none exports none. A unit
 * the user turned off ({@code disable=}) is off from the start, and quietly: that is no fault.
 */
public final class UnitSwitch {

  /** Test-only: makes every bridge call fail inside the agent, to prove such faults never reach the host. */
  public static final String INJECT_FAULTS_PROPERTY = "resyncmeter.test.injectFaults";

  private static final boolean INJECT_FAULTS = Boolean.getBoolean(INJECT_FAULTS_PROPERTY);

  private final String unit;
  private final String component;
  private final Runnable whenTurnedOff;
  private final Runnable whenWoven;
  private volatile boolean off;
  private volatile boolean disabled;

  /** {@code unit} names it in words, {@code component} in metrics ({@code clientjava-informer}). */
  public UnitSwitch(String unit, String component) {
    this(unit, component, () -> {}, () -> {});
  }

  /**
   * {@code whenWoven} tells other units what they can see once a class of this unit is woven; {@code
   * whenTurnedOff} undoes it.
   */
  public UnitSwitch(String unit, String component, Runnable whenTurnedOff, Runnable whenWoven) {
    this.unit = unit;
    this.component = component;
    this.whenTurnedOff = whenTurnedOff;
    this.whenWoven = whenWoven;
  }

  public String unit() {
    return unit;
  }

  /** The unit's {@code component} label value, in faults and in {@code resync_meter_instrumentation_active}. */
  public String component() {
    return component;
  }

  /**
   * True while the unit works. Under the test-only fault switch it throws instead, as a bug in the
   * agent would: every caller is a bridge method, below an advice that suppresses and counts it.
   */
  public boolean on() {
    if (INJECT_FAULTS) {
      throw new InjectedFault(unit);
    }
    return !off;
  }

  /** Whether the unit was switched off or disabled; never throws (for the weaving, not for bridge calls). */
  public boolean isOff() {
    return off;
  }

  /** Whether the user turned the unit off: it is not woven, and is no fault. */
  public boolean isDisabled() {
    return disabled;
  }

  /**
   * Runs {@code action} unless the unit is off, atomically with {@link #turnOff}: what the action
   * tells other units can never outlive the switch-off (which undoes it).
   */
  public synchronized void ifOn(Runnable action) {
    if (!off) {
      action.run();
    }
  }

  /** A class of the unit was woven (its layout checked): tells the other units, unless the unit is off. */
  public void woven() {
    ifOn(whenWoven);
  }

  /**
   * Turns the unit off before anything is woven, as the user asked: no line, no fault. What the other
   * units learn from this one is told as lost at once, as when it switches itself off.
   */
  public void disable() {
    synchronized (this) {
      if (off) {
        return;
      }
      off = true;
      disabled = true;
      whenTurnedOff.run();
    }
  }

  /** Switches the unit off for good; only the first reason is reported. */
  public void turnOff(String reason) {
    synchronized (this) {
      if (off) {
        return;
      }
      off = true;
      whenTurnedOff.run();
    }
    AgentLog.warnLater(
        "{} instrumentation off: {}; the application runs on, without what this part measures", unit, reason);
  }

  /** The fault that the test-only switch makes every bridge call throw. */
  static final class InjectedFault extends RuntimeException {
    InjectedFault(String unit) {
      super("fault injected into the " + unit + " instrumentation (" + INJECT_FAULTS_PROPERTY + "=true)", null, false, false);
    }
  }
}
