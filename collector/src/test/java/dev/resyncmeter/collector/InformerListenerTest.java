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

  @AfterEach
  void noScopeLeftOpen() {
    assertThat(context.handlerCall().trigger()).isNull();
  }

  private String scrape() {
    return metrics.scrape(null).body();
  }

  @Test
  void aResyncNoopUpdateThatAddsToAQueueIsEnqueuedAndItsAddsCarryItsTrigger() {
    Listener listener = new Listener(true);
    assertThat(listener.callStarting(context.handlerCall(), handler, NotificationType.UPDATE)).isTrue();
    listener.updateSeen(true, true, "7", "7");
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
    seen.callStarting(context.handlerCall(), handler, NotificationType.UPDATE);
    seen.updateSeen(true, false, "7", "7");
    seen.callFinished(true);
    Listener unseen = new Listener(false);
    unseen.callStarting(context.handlerCall(), handler, NotificationType.UPDATE);
    unseen.updateSeen(false, false, "8", "8");
    unseen.callFinished(true);

    assertThat(scrape())
        .contains("informer_noop_updates_total{cause=\"relist\",handler=\"h\",kind=\"ConfigMap\",outcome=\"dropped\"} 1.0")
        .contains("informer_noop_updates_total{cause=\"watch\",handler=\"h\",kind=\"ConfigMap\",outcome=\"unknown\"} 1.0");
  }

  @Test
  void aChangedUpdateIsCountedByItsCauseAndItsAddsAreChanges() {
    Listener listener = new Listener(true);
    listener.callStarting(context.handlerCall(), handler, NotificationType.UPDATE);
    listener.updateSeen(false, false, "7", "8");
    assertThat(context.handlerCall().trigger()).isEqualTo(Trigger.CHANGE);
    listener.callFinished(true);

    assertThat(scrape())
        .contains("informer_updates_total{cause=\"watch\",handler=\"h\",kind=\"ConfigMap\",resource_version=\"changed\"} 1.0")
        .doesNotContain("informer_noop_updates_total{");
  }

  @Test
  void addsAndDeletesAreCountedByType() {
    Listener listener = new Listener(true);
    listener.callStarting(context.handlerCall(), handler, NotificationType.ADD);
    listener.callFinished(true);
    listener.callStarting(context.handlerCall(), handler, NotificationType.DELETE);
    listener.callFinished(true);

    assertThat(scrape())
        .contains("informer_notifications_total{handler=\"h\",kind=\"ConfigMap\",type=\"add\"} 1.0")
        .contains("informer_notifications_total{handler=\"h\",kind=\"ConfigMap\",type=\"delete\"} 1.0");
  }

  @Test
  void anUpdateWhoseCauseWasNeverToldCountsAsANotificationOnly() {
    Listener listener = new Listener(true);
    listener.callStarting(context.handlerCall(), handler, NotificationType.UPDATE);
    listener.callFinished(true);

    assertThat(scrape())
        .contains("informer_notifications_total{handler=\"h\",kind=\"ConfigMap\",type=\"update\"} 1.0")
        .doesNotContain("informer_updates_total{");
  }

  @Test
  void anotherHandlerOrANestedCallOfTheSameListenerOpensNoCall() {
    Listener listener = new Listener(true);
    assertThat(listener.callStarting(context.handlerCall(), new Object(), NotificationType.ADD)).as("a delegate of the handler").isFalse();
    assertThat(listener.callStarting(context.handlerCall(), handler, NotificationType.ADD)).isTrue();
    assertThat(listener.callStarting(context.handlerCall(), handler, NotificationType.ADD)).as("a super call inside the call").isFalse();
    assertThat(new Listener(true).callStarting(context.handlerCall(), handler, NotificationType.ADD)).as("another listener's call inside it").isFalse();
    listener.callFinished(true);

    assertThat(scrape()).contains("informer_notifications_total{handler=\"h\",kind=\"ConfigMap\",type=\"add\"} 1.0");
  }

  @Test
  void aCallFinishedWhileItsUnitIsOffIsClosedButNotCounted() {
    Listener listener = new Listener(true);
    listener.callStarting(context.handlerCall(), handler, NotificationType.UPDATE);
    listener.updateSeen(true, true, "7", "7");
    listener.callFinished(false);

    assertThat(scrape()).doesNotContain("informer_notifications_total{").doesNotContain("informer_noop_updates_total{");
    assertThat(listener.callStarting(context.handlerCall(), handler, NotificationType.ADD)).as("the next call opens").isTrue();
    listener.callFinished(true);
    assertThat(scrape()).contains("informer_notifications_total{handler=\"h\",kind=\"ConfigMap\",type=\"add\"} 1.0");
  }

  @Test
  void theCauseOfOneUpdateDoesNotLeakIntoTheNextCall() {
    Listener listener = new Listener(true);
    listener.callStarting(context.handlerCall(), handler, NotificationType.UPDATE);
    listener.updateSeen(true, true, "7", "7");
    listener.callFinished(true);
    listener.callStarting(context.handlerCall(), handler, NotificationType.UPDATE);
    assertThat(context.handlerCall().trigger()).isEqualTo(Trigger.CHANGE);
    listener.callFinished(true);

    assertThat(scrape())
        .contains("informer_notifications_total{handler=\"h\",kind=\"ConfigMap\",type=\"update\"} 2.0")
        .contains("informer_noop_updates_total{cause=\"resync\",handler=\"h\",kind=\"ConfigMap\",outcome=\"dropped\"} 1.0");
  }
}
