package dev.resyncmeter.collector;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class TriggerTest {

  /**
   * change > own_write > unknown > other > requeue > periodic > watch_noop > relist_noop > resync_noop
   * (issue 44: a real change by someone else outranks an echo of the process's own write).
   */
  private static final List<Trigger> STRONGEST_FIRST =
      List.of(Trigger.CHANGE, Trigger.OWN_WRITE, Trigger.UNKNOWN, Trigger.OTHER, Trigger.REQUEUE, Trigger.PERIODIC, Trigger.WATCH_NOOP, Trigger.RELIST_NOOP, Trigger.RESYNC_NOOP);

  @Test
  void everyPairMergesIntoTheStrongerWhateverTheOrder() {
    for (int i = 0; i < STRONGEST_FIRST.size(); i++) {
      for (int j = i; j < STRONGEST_FIRST.size(); j++) {
        Trigger stronger = STRONGEST_FIRST.get(i);
        Trigger weaker = STRONGEST_FIRST.get(j);
        assertThat(Trigger.merge(stronger, weaker)).as(stronger + " + " + weaker).isEqualTo(stronger);
        assertThat(Trigger.merge(weaker, stronger)).as(weaker + " + " + stronger).isEqualTo(stronger);
      }
    }
  }

  @Test
  void theOrderIsEveryTrigger() {
    assertThat(STRONGEST_FIRST).containsExactlyInAnyOrder(Trigger.values());
  }

  @Test
  void nothingMergedWithATriggerIsThatTrigger() {
    assertThat(Trigger.merge(null, Trigger.REQUEUE)).isEqualTo(Trigger.REQUEUE);
    assertThat(Trigger.merge(Trigger.RESYNC_NOOP, null)).isEqualTo(Trigger.RESYNC_NOOP);
  }

  @Test
  void onlyTheNoopTriggersAreResyncCost() {
    assertThat(Trigger.values()).filteredOn(Trigger::noop).containsExactlyInAnyOrder(Trigger.RESYNC_NOOP, Trigger.RELIST_NOOP, Trigger.WATCH_NOOP);
  }

  @Test
  void aHandlerCallGivesItsNoopTriggerOnlyForUnchangedUpdates() {
    assertThat(Trigger.ofHandlerCall(NotificationType.UPDATE, UpdateCause.RESYNC, true)).isEqualTo(Trigger.RESYNC_NOOP);
    assertThat(Trigger.ofHandlerCall(NotificationType.UPDATE, UpdateCause.RELIST, true)).isEqualTo(Trigger.RELIST_NOOP);
    assertThat(Trigger.ofHandlerCall(NotificationType.UPDATE, UpdateCause.WATCH, true)).isEqualTo(Trigger.WATCH_NOOP);
    assertThat(Trigger.ofHandlerCall(NotificationType.UPDATE, UpdateCause.WATCH, false)).isEqualTo(Trigger.CHANGE);
    assertThat(Trigger.ofHandlerCall(NotificationType.UPDATE, UpdateCause.RELIST, false)).isEqualTo(Trigger.CHANGE);
    assertThat(Trigger.ofHandlerCall(NotificationType.ADD, null, false)).isEqualTo(Trigger.CHANGE);
    assertThat(Trigger.ofHandlerCall(NotificationType.DELETE, null, false)).isEqualTo(Trigger.CHANGE);
  }
}
