package dev.resyncmeter.collector;

/**
 * The reconcile running on one thread, part of its {@link ThreadContext}: its controller and trigger,
 * under which the API requests it sends count, and its writes, from which its effect follows.
 */
public final class Reconcile {

  private static final ApiVerb[] VERBS = ApiVerb.values();

  private ControllerMetrics controller;
  /** Null while the trigger is told only when the reconcile ends: its requests wait in {@link #untriggeredRequests}. */
  private Trigger trigger;
  /** Per {@link ApiVerb}: requests of the running reconcile whose trigger is not known yet. */
  private long[] untriggeredRequests;

  private int writes;
  private int writesChangedNothing;
  /** The resourceVersion the object had before the update or patch about to be sent here, when known. */
  private String writeBase;
  /** The version of the object the running reconcile was handed (JOSDK's primary resource), when known. */
  private String handedVersion;

  Reconcile() {}

  /** A reconcile of {@code controller} with {@code trigger} starts on this thread. */
  public void began(ControllerMetrics controller, Trigger trigger) {
    this.controller = controller;
    this.trigger = trigger;
    forgetWrites();
  }

  /**
   * A reconcile of {@code controller} starts on this thread whose trigger is told only when it ends
   * (after an attach, a worker took its item in a {@code get} that began before the agent came).
   */
  public void beganUntriggered(ControllerMetrics controller) {
    began(controller, null);
  }

  /** The reconcile running on this thread ended. */
  public void over() {
    controller = null;
    trigger = null;
  }

  /** The reconcile running on this thread ended with {@code trigger}: the requests that waited for it count now. */
  public void over(Trigger trigger) {
    long[] waiting = untriggeredRequests;
    if (controller != null && this.trigger == null && waiting != null) {
      for (ApiVerb verb : VERBS) {
        for (long n = waiting[verb.ordinal()]; n > 0; n--) {
          controller.apiRequested(trigger, verb);
        }
        waiting[verb.ordinal()] = 0;
      }
    }
    over();
  }

  /**
   * The reconcile running on this thread ended, its trigger still to be told (it waits on echoes):
   * returns its requests by {@link ApiVerb}, to count with it then.
   */
  public long[] overUntold() {
    long[] requests = untriggeredRequests == null ? new long[VERBS.length] : untriggeredRequests.clone();
    if (untriggeredRequests != null) {
      java.util.Arrays.fill(untriggeredRequests, 0);
    }
    over();
    return requests;
  }

  /** Whether a reconcile that the agent attributes runs on this thread. */
  public boolean running() {
    return controller != null;
  }

  /** The controller whose reconcile runs on this thread, or null. */
  public ControllerMetrics controller() {
    return controller;
  }

  /** The trigger of the reconcile running on this thread; null when none runs or it is told at its end. */
  public Trigger trigger() {
    return trigger;
  }

  /** The running reconcile sends an API request with {@code verb}: it counts under its controller and trigger. */
  void requestSent(ApiVerb verb) {
    if (verb.writes()) {
      writes++;
    }
    if (trigger != null) {
      controller.apiRequested(trigger, verb);
      return;
    }
    if (untriggeredRequests == null) {
      untriggeredRequests = new long[VERBS.length];
    }
    untriggeredRequests[verb.ordinal()]++;
  }

  /**
   * The update or patch about to be sent on this thread starts from an object at {@code
   * resourceVersion} (null: not known); its answer is compared with it.
   */
  public void writeBase(String resourceVersion) {
    if (controller != null) {
      writeBase = resourceVersion;
    }
  }

  public boolean hasWriteBase() {
    return writeBase != null;
  }

  /** The resourceVersion told by {@link #writeBase} for the write being answered, once. */
  public String takeWriteBase() {
    String base = writeBase;
    writeBase = null;
    return base;
  }

  /**
   * The running reconcile was handed an object at {@code resourceVersion}: a write whose version
   * before is not known is compared with it. A version names one state of one object, so an answer
   * carrying it can only be that object left as it was.
   */
  public void handedVersion(String resourceVersion) {
    handedVersion = resourceVersion;
  }

  /**
   * A write of the running reconcile got its answer: {@code code}, and for an update or patch the
   * resourceVersion of the object before ({@code before}, null when not known: then the version of
   * the object the reconcile was handed, if any) and in the answer.
   * It changed nothing when the server refused it, or answered with the version the object had.
   */
  public void writeAnswered(int code, String before, String after) {
    if (controller != null && writesChangedNothing < writes && changedNothing(code, before != null ? before : handedVersion, after)) {
      writesChangedNothing++;
    }
  }

  static boolean changedNothing(int code, String before, String after) {
    if (code >= 400 && code <= 599) {
      return true;
    }
    return code >= 200 && code <= 299 && before != null && before.equals(after);
  }

  /** The effect of the reconcile that ran last on this thread, from the writes seen; forgets them. */
  public ReconcileEffect takeEffect() {
    ReconcileEffect effect = ReconcileEffect.of(writes, writesChangedNothing);
    forgetWrites();
    return effect;
  }

  private void forgetWrites() {
    writes = 0;
    writesChangedNothing = 0;
    writeBase = null;
    handedVersion = null;
  }
}
