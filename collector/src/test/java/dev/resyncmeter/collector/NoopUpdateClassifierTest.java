package dev.resyncmeter.collector;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class NoopUpdateClassifierTest {

  @ParameterizedTest(name = "sync={0} sameInstance={1} -> {2}")
  @CsvSource({
    "false, false, WATCH", // a watch event is a watch update whatever the instances
    "false, true, WATCH",
    "true, true, RESYNC", // a sync of the same instance is a periodic resync
    "true, false, RELIST" // a sync of a fresh copy is a relist
  })
  void aWatchEventIsAWatchUpdateAndASyncIsAResyncOfTheSameInstanceOrARelistOfAFreshCopy(
      boolean sync, boolean sameInstance, UpdateCause cause) {
    assertThat(NoopUpdateClassifier.cause(sync, sameInstance)).isEqualTo(cause);
  }

  @ParameterizedTest(name = "old={0} new={1} -> unchanged={2}")
  @CsvSource(
      value = {"5,5,true", "5,6,false", "6,5,false", "NULL,5,false", "5,NULL,false", "NULL,NULL,false", "'','',false"},
      nullValues = "NULL")
  void theResourceVersionIsUnchangedOnlyWhenBothAreKnownAndEqual(String oldVersion, String newVersion, boolean unchanged) {
    assertThat(NoopUpdateClassifier.resourceVersionUnchanged(oldVersion, newVersion)).isEqualTo(unchanged);
  }

  @ParameterizedTest(name = "queueAddsObservable={0} addedToQueue={1} -> {2}")
  @CsvSource({
    "true, true, ENQUEUED", // a noop is enqueued when the handler added to a queue
    "false, true, ENQUEUED",
    "true, false, DROPPED", // dropped when queue adds are observable and none happened
    "false, false, UNKNOWN" // unknown when no queue add could have been seen
  })
  void aNoopIsEnqueuedAfterAQueueAddElseDroppedWhereAddsAreObservableElseUnknown(
      boolean queueAddsObservable, boolean addedToQueue, NoopOutcome outcome) {
    assertThat(NoopUpdateClassifier.outcome(queueAddsObservable, addedToQueue)).isEqualTo(outcome);
  }
}
