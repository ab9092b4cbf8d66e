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
    assertThat(reconcile(() -> {
      send(ApiVerb.UPDATE);
      context.reconcile().writeAnswered(200, "41", "42");
    })).isEqualTo(ReconcileEffect.CHANGED);
  }

  @Test
  void refusedWritesChangedNothing() {
    assertThat(reconcile(() -> {
      send(ApiVerb.UPDATE);
      context.reconcile().writeAnswered(409, "41", null);
      send(ApiVerb.CREATE);
      context.reconcile().writeAnswered(409, null, null);
      send(ApiVerb.DELETE);
      context.reconcile().writeAnswered(404, null, null);
      send(ApiVerb.PATCH);
      context.reconcile().writeAnswered(503, null, null);
    })).isEqualTo(ReconcileEffect.UNCHANGED);
  }

  @Test
  void whatCannotBeShownToChangeNothingIsChanged() {
    // a create or delete that succeeded
    assertThat(reconcile(() -> {
      send(ApiVerb.CREATE);
      context.reconcile().writeAnswered(201, null, "7");
    })).isEqualTo(ReconcileEffect.CHANGED);
    // a patch whose version before is not known
    assertThat(reconcile(() -> {
      send(ApiVerb.PATCH);
      context.reconcile().writeAnswered(200, null, "7");
    })).isEqualTo(ReconcileEffect.CHANGED);
    // a write with no answer (-1: the connection failed)
    assertThat(reconcile(() -> {
      send(ApiVerb.UPDATE);
      context.reconcile().writeAnswered(-1, "7", null);
    })).isEqualTo(ReconcileEffect.CHANGED);
    // a write sent and never answered where the agent looks
    assertThat(reconcile(() -> send(ApiVerb.DELETECOLLECTION))).isEqualTo(ReconcileEffect.CHANGED);
  }

  @Test
  void aWriteWhoseVersionBeforeIsUnknownIsComparedWithTheObjectTheReconcileWasHanded() {
    assertThat(reconcile(() -> {
      context.reconcile().handedVersion("30");
      send(ApiVerb.PATCH);
      context.reconcile().writeAnswered(200, null, "30");
    })).isEqualTo(ReconcileEffect.UNCHANGED);
    assertThat(reconcile(() -> {
      context.reconcile().handedVersion("30");
      send(ApiVerb.PATCH);
      context.reconcile().writeAnswered(200, null, "31");
    })).isEqualTo(ReconcileEffect.CHANGED);
    assertThat(reconcile(() -> {
      send(ApiVerb.PATCH);
      context.reconcile().writeAnswered(200, null, "30");
    })).as("the handed version is the last reconcile's only").isEqualTo(ReconcileEffect.CHANGED);
  }

  @Test
  void oneChangingWriteAmongUnchangedOnesMakesTheReconcileChanged() {
    assertThat(reconcile(() -> {
      send(ApiVerb.UPDATE);
      context.reconcile().writeAnswered(200, "5", "5");
      send(ApiVerb.PATCH);
      context.reconcile().writeAnswered(200, "5", "6");
      send(ApiVerb.UPDATE);
      context.reconcile().writeAnswered(409, "5", null);
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
