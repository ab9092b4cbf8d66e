package dev.resyncmeter.collector;

/**
 * A reconcile that ended on work added for updates not yet told echoes or not (the writer had not
 * read its write's answer yet): it counts, with its API requests and its effect, once they are all
 * told, under {@code own_write} if each was an echo, else {@code change}, on the thread that tells the
 * last. Guarded by the lock of the echoes' {@link OwnWrites}.
 */
final class AwaitedReconcile {

  private final ControllerMetrics controller;
  private final ReconcileResult result;
  private final long nanos;
  private final ReconcileEffect effect;
  private final long[] requestsByVerb;

  private int awaited;
  private boolean noEcho;
  private boolean allAwaitsKnown;
  private boolean counted;

  AwaitedReconcile(ControllerMetrics controller, ReconcileResult result, long nanos, ReconcileEffect effect, long[] requestsByVerb) {
    this.controller = controller;
    this.result = result;
    this.nanos = nanos;
    this.effect = effect;
    this.requestsByVerb = requestsByVerb;
  }

  void awaits() {
    awaited++;
  }

  void told(boolean echo) {
    noEcho |= !echo;
  }

  void allAwaitsKnown() {
    allAwaitsKnown = true;
    countIfTold();
  }

  void echoSettled(boolean echo) {
    told(echo);
    awaited--;
    countIfTold();
  }

  private void countIfTold() {
    if (allAwaitsKnown && awaited == 0 && !counted) {
      counted = true;
      Trigger trigger = noEcho ? Trigger.CHANGE : Trigger.OWN_WRITE;
      LastRow row = ThreadContext.current().lastRow();
      controller.reconciled(row, trigger, result, nanos);
      controller.reconcileEffect(row, trigger, effect);
      controller.apiRequested(trigger, requestsByVerb);
    }
  }
}
