package dev.resyncmeter.collector;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The life of one handler call, as every library's informer unit drives it. */
class InformerListenerTest {

  private final ResyncMetrics metrics = new ResyncMetrics();
  private final ThreadContext context = ThreadContext.current();
  private final Object handler = new Object();

  /** A listener of a library whose handlers' queue adds the agent sees, or not. */
  private final class Listener extends InformerListener {
    private final boolean dropsAreObservable;

    Listener(boolean dropsAreObservable) {
      super(handler);
      this.dropsAreObservable = dropsAreObservable;
    }

    @Override
    public HandlerMetrics metrics() {
      return metrics.handler("ConfigMap", "h");
    }

    @Override
    protected boolean dropsAreObservable() {
      return dropsAreObservable;
    }
  }

  /** The listener most calls go through; its drops are seen. */
  private final Listener listener = new Listener(true);

  @AfterEach
  void noScopeLeftOpen() {
    assertThat(context.handlerCall().trigger()).isNull();
  }

  private String scrape() {
    return metrics.scrape(null).body();
  }

  /** {@code caller} calls its handler with a notification of {@code type}: true when that opens a call. */
  private boolean handlerCalled(Listener caller, NotificationType type) {
    return caller.callStarting(context.handlerCall(), handler, type);
  }

  /** An update call of {@code caller} opens and tells its cause and resource versions. */
  private void updateCalled(Listener caller, boolean sync, boolean sameInstance, String oldVersion, String newVersion) {
    assertThat(handlerCalled(caller, NotificationType.UPDATE)).isTrue();
    caller.updateSeen(sync, sameInstance, oldVersion, newVersion);
  }

  /** A whole, counted update call of {@code caller} that added nothing to a queue. */
  private void wholeUpdateCall(Listener caller, boolean sync, boolean sameInstance, String oldVersion, String newVersion) {
    updateCalled(caller, sync, sameInstance, oldVersion, newVersion);
    caller.callFinished(true);
  }

  /** A whole, counted call of the listener's handler that tells nothing but its type. */
  private void wholeCall(NotificationType type) {
    assertThat(handlerCalled(listener, type)).isTrue();
    listener.callFinished(true);
  }

  @Test
  void aResyncNoopUpdateThatAddsToAQueueIsEnqueuedAndItsAddsCarryItsTrigger() {
    updateCalled(listener, true, true, "7", "7");
    assertThat(context.handlerCall().trigger()).isEqualTo(Trigger.RESYNC_NOOP);
    context.handlerCall().queueAdded();
    listener.callFinished(true);

    assertThat(scrape())
        .contains("informer_noop_updates_total{cause=\"resync\",handler=\"h\",kind=\"ConfigMap\",outcome=\"enqueued\"} 1.0")
        .contains("informer_notifications_total{handler=\"h\",kind=\"ConfigMap\",type=\"update\"} 1.0");
  }

  @Test
  void aNoopUpdateThatAddsNothingIsDroppedWhereDropsAreSeenAndUnknownElsewhere() {
    Listener seen = new Listener(true);
    Listener unseen = new Listener(false);
    wholeUpdateCall(seen, true, false, "7", "7");
    wholeUpdateCall(unseen, false, false, "8", "8");

    assertThat(scrape())
        .contains("informer_noop_updates_total{cause=\"relist\",handler=\"h\",kind=\"ConfigMap\",outcome=\"dropped\"} 1.0")
        .contains("informer_noop_updates_total{cause=\"watch\",handler=\"h\",kind=\"ConfigMap\",outcome=\"unknown\"} 1.0");
  }

  @Test
  void aChangedUpdateIsCountedByItsCauseAndItsAddsAreChanges() {
    updateCalled(listener, false, false, "7", "8");
    assertThat(context.handlerCall().trigger()).isEqualTo(Trigger.CHANGE);
    listener.callFinished(true);

    assertThat(scrape())
        .contains("informer_updates_total{cause=\"watch\",handler=\"h\",kind=\"ConfigMap\",resource_version=\"changed\"} 1.0")
        .doesNotContain("informer_noop_updates_total{");
  }

  @Test
  void addsAndDeletesAreCountedByType() {
    wholeCall(NotificationType.ADD);
    wholeCall(NotificationType.DELETE);

    assertThat(scrape())
        .contains("informer_notifications_total{handler=\"h\",kind=\"ConfigMap\",type=\"add\"} 1.0")
        .contains("informer_notifications_total{handler=\"h\",kind=\"ConfigMap\",type=\"delete\"} 1.0");
  }

  @Test
  void anUpdateWhoseCauseWasNeverToldCountsAsANotificationOnly() {
    wholeCall(NotificationType.UPDATE);

    assertThat(scrape())
        .contains("informer_notifications_total{handler=\"h\",kind=\"ConfigMap\",type=\"update\"} 1.0")
        .doesNotContain("informer_updates_total{");
  }

  @Test
  void anotherHandlerOrANestedCallOfTheSameListenerOpensNoCall() {
    assertThat(listener.callStarting(context.handlerCall(), new Object(), NotificationType.ADD)).as("a delegate of the handler").isFalse();
    assertThat(handlerCalled(listener, NotificationType.ADD)).isTrue();
    assertThat(handlerCalled(listener, NotificationType.ADD)).as("a super call inside the call").isFalse();
    assertThat(handlerCalled(new Listener(true), NotificationType.ADD)).as("another listener's call inside it").isFalse();
    listener.callFinished(true);

    assertThat(scrape()).contains("informer_notifications_total{handler=\"h\",kind=\"ConfigMap\",type=\"add\"} 1.0");
  }

  @Test
  void aCallFinishedWhileItsUnitIsOffIsClosedButNotCounted() {
    updateCalled(listener, true, true, "7", "7");
    listener.callFinished(false);

    assertThat(scrape()).doesNotContain("informer_notifications_total{").doesNotContain("informer_noop_updates_total{");
    assertThat(handlerCalled(listener, NotificationType.ADD)).as("the next call opens").isTrue();
    listener.callFinished(true);
    assertThat(scrape()).contains("informer_notifications_total{handler=\"h\",kind=\"ConfigMap\",type=\"add\"} 1.0");
  }

  @Test
  void theCauseOfOneUpdateDoesNotLeakIntoTheNextCall() {
    wholeUpdateCall(listener, true, true, "7", "7");
    assertThat(handlerCalled(listener, NotificationType.UPDATE)).isTrue();
    assertThat(context.handlerCall().trigger()).isEqualTo(Trigger.CHANGE);
    listener.callFinished(true);

    assertThat(scrape())
        .contains("informer_notifications_total{handler=\"h\",kind=\"ConfigMap\",type=\"update\"} 2.0")
        .contains("informer_noop_updates_total{cause=\"resync\",handler=\"h\",kind=\"ConfigMap\",outcome=\"dropped\"} 1.0");
  }

  @Test
  void anUpdateThatEchoesAWriteFromThisProcessCountsAsAnOwnWriteUpdateAndItsAddsAreOwnWrite() {
    assertThat(handlerCalled(listener, NotificationType.UPDATE)).isTrue();
    listener.updateSeen(false, false, "4", "5", PendingEcho.ECHO);
    assertThat(context.handlerCall().trigger()).isEqualTo(Trigger.OWN_WRITE);
    listener.callFinished(true);

    assertThat(scrape())
        .contains("informer_own_write_updates_total{handler=\"h\",kind=\"ConfigMap\"} 1.0")
        .contains("informer_updates_total{cause=\"watch\",handler=\"h\",kind=\"ConfigMap\",resource_version=\"changed\"} 1.0");
  }

  @Test
  void anUpdateWhoseVersionDidNotChangeIsNeverAnEcho() {
    updateCalled(listener, true, true, "5", "5");
    listener.callFinished(true);
    assertThat(handlerCalled(listener, NotificationType.UPDATE)).isTrue();
    listener.updateSeen(true, true, "5", "5", PendingEcho.ECHO);
    assertThat(context.handlerCall().trigger()).isEqualTo(Trigger.RESYNC_NOOP);
    listener.callFinished(true);
    assertThat(scrape()).doesNotContain("informer_own_write_updates_total");
  }

  @Test
  void anUpdateThatArrivesBeforeItsWritesAnswerCountsAsAnEchoWhenTheAnswerComes() {
    OwnWrites writes = metrics.ownWrites();
    writes.writeSent("ns/a");
    PendingEcho pending = writes.check(new WrittenObject("ns", "a", "u", "5"));
    assertThat(handlerCalled(listener, NotificationType.UPDATE)).isTrue();
    listener.updateSeen(false, false, "4", "5", pending);
    listener.callFinished(true);
    assertThat(scrape()).doesNotContain("informer_own_write_updates_total");

    writes.writeAnswered("ns/a", new WrittenObject("ns", "a", "u", "5"));

    assertThat(scrape()).contains("informer_own_write_updates_total{handler=\"h\",kind=\"ConfigMap\"} 1.0");
  }
}
