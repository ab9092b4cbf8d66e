package dev.resyncmeter.collector;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** How a reconcile's writes, as the thread sends them and their answers come, make its one effect. */
class ReconcileEffectTest {

  private final ResyncMetrics metrics = new ResyncMetrics();
  private final ControllerMetrics controller = metrics.controller("c");
  private final ThreadContext context = ThreadContext.current();

  @AfterEach
  void forgetTheThreadsReconcile() {
    context.reconcile().over();
    context.reconcile().takeEffect();
  }

  /** One reconcile on this thread: {@code body} sends and answers, then its effect. */
  private ReconcileEffect reconcile(Runnable body) {
    context.reconcile().began(controller, Trigger.RESYNC_NOOP);
    body.run();
    context.reconcile().over();
    return context.reconcile().takeEffect();
  }

  private void send(ApiVerb verb) {
    metrics.apiRequestSent(context, verb, null);
  }

  /** A write is sent and answered with {@code code} and the resourceVersions before and after it. */
  private void write(ApiVerb verb, int code, String versionBefore, String versionAfter) {
    send(verb);
    context.reconcile().writeAnswered(code, versionBefore, versionAfter);
  }

  @Test
  void withAnInstrumentationOfRequestsOffEveryReconcileCountsAsChangedNeverWaste() {
    metrics.observability().writesBecameUnobservable();
    controller.reconcileEffect(context.lastRow(), Trigger.RESYNC_NOOP, reconcile(() -> send(ApiVerb.GET)));
    controller.reconcileEffect(context.lastRow(), Trigger.RESYNC_NOOP, reconcile(() -> {
      context.reconcile().writeBase("41");
      send(ApiVerb.UPDATE);
      context.reconcile().writeAnswered(200, context.reconcile().takeWriteBase(), "41");
    }));
    assertThat(metrics.scrape(null).body())
        .contains("controller_reconcile_effect_total{controller=\"c\",effect=\"changed\",trigger=\"resync_noop\"} 2.0")
        .doesNotContain("effect=\"none\"")
        .doesNotContain("effect=\"unchanged\"");
  }

  @Test
  void readsAloneAreNone() {
    assertThat(reconcile(() -> {
      send(ApiVerb.GET);
      send(ApiVerb.LIST);
    })).isEqualTo(ReconcileEffect.NONE);
  }

  @Test
  void anUpdateAnsweredWithTheVersionItHadIsUnchanged() {
    assertThat(reconcile(() -> {
      send(ApiVerb.GET);
      context.reconcile().writeBase("41");
      send(ApiVerb.UPDATE);
      context.reconcile().writeAnswered(200, context.reconcile().takeWriteBase(), "41");
    })).isEqualTo(ReconcileEffect.UNCHANGED);
  }

  @Test
  void anUpdateAnsweredWithANewVersionIsChanged() {
    assertThat(reconcile(() -> write(ApiVerb.UPDATE, 200, "41", "42"))).isEqualTo(ReconcileEffect.CHANGED);
  }

  @Test
  void refusedWritesChangedNothing() {
    assertThat(reconcile(() -> {
      write(ApiVerb.UPDATE, 409, "41", null);
      write(ApiVerb.CREATE, 409, null, null);
      write(ApiVerb.DELETE, 404, null, null);
      write(ApiVerb.PATCH, 503, null, null);
    })).isEqualTo(ReconcileEffect.UNCHANGED);
  }

  @Test
  void whatCannotBeShownToChangeNothingIsChanged() {
    // a create or delete that succeeded
    assertThat(reconcile(() -> write(ApiVerb.CREATE, 201, null, "7"))).isEqualTo(ReconcileEffect.CHANGED);
    // a patch whose version before is not known
    assertThat(reconcile(() -> write(ApiVerb.PATCH, 200, null, "7"))).isEqualTo(ReconcileEffect.CHANGED);
    // a write with no answer (-1: the connection failed)
    assertThat(reconcile(() -> write(ApiVerb.UPDATE, -1, "7", null))).isEqualTo(ReconcileEffect.CHANGED);
    // a write sent and never answered where the agent looks
    assertThat(reconcile(() -> send(ApiVerb.DELETECOLLECTION))).isEqualTo(ReconcileEffect.CHANGED);
  }

  @Test
  void aWriteWhoseVersionBeforeIsUnknownIsComparedWithTheObjectTheReconcileWasHanded() {
    assertThat(reconcile(() -> {
      context.reconcile().handedVersion("30");
      write(ApiVerb.PATCH, 200, null, "30");
    })).isEqualTo(ReconcileEffect.UNCHANGED);
    assertThat(reconcile(() -> {
      context.reconcile().handedVersion("30");
      write(ApiVerb.PATCH, 200, null, "31");
    })).isEqualTo(ReconcileEffect.CHANGED);
    assertThat(reconcile(() -> write(ApiVerb.PATCH, 200, null, "30"))).as("the handed version is the last reconcile's only").isEqualTo(ReconcileEffect.CHANGED);
  }

  @Test
  void oneChangingWriteAmongUnchangedOnesMakesTheReconcileChanged() {
    assertThat(reconcile(() -> {
      write(ApiVerb.UPDATE, 200, "5", "5");
      write(ApiVerb.PATCH, 200, "5", "6");
      write(ApiVerb.UPDATE, 409, "5", null);
    })).isEqualTo(ReconcileEffect.CHANGED);
  }

  @Test
  void moreAnswersThanWritesSentNeverHideAWrite() {
    assertThat(reconcile(() -> {
      context.reconcile().writeAnswered(200, "5", "5"); // an answer to a write sent before the reconcile
      send(ApiVerb.CREATE);
    })).isEqualTo(ReconcileEffect.CHANGED);
  }

  @Test
  void eachReconcileStartsAfresh() {
    assertThat(reconcile(() -> send(ApiVerb.CREATE))).isEqualTo(ReconcileEffect.CHANGED);
    assertThat(reconcile(() -> {})).isEqualTo(ReconcileEffect.NONE);
    context.reconcile().writeBase("stale");
    assertThat(reconcile(() -> {
      send(ApiVerb.UPDATE);
      context.reconcile().writeAnswered(200, context.reconcile().takeWriteBase(), "stale");
    })).as("a base told outside a reconcile is not kept").isEqualTo(ReconcileEffect.CHANGED);
  }

  @Test
  void writesOutsideAReconcileAreNoReconcilesEffect() {
    send(ApiVerb.CREATE);
    assertThat(context.reconcile().takeEffect()).isEqualTo(ReconcileEffect.NONE);
  }

  @Test
  void effectsAreExportedByControllerTriggerAndEffect() {
    controller.reconcileEffect(context.lastRow(), Trigger.RESYNC_NOOP, ReconcileEffect.UNCHANGED);
    controller.reconcileEffect(context.lastRow(), Trigger.RESYNC_NOOP, ReconcileEffect.UNCHANGED);
    controller.reconcileEffect(context.lastRow(), Trigger.PERIODIC, ReconcileEffect.CHANGED);
    assertThat(metrics.scrape(null).body())
        .contains("controller_reconcile_effect_total{controller=\"c\",effect=\"unchanged\",trigger=\"resync_noop\"} 2.0")
        .contains("controller_reconcile_effect_total{controller=\"c\",effect=\"changed\",trigger=\"periodic\"} 1.0")
        .doesNotContain("effect=\"none\"");
  }
}
