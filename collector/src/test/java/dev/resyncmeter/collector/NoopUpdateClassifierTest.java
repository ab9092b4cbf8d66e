package dev.resyncmeter.collector;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class NoopUpdateClassifierTest {

  @Test
  void aWatchEventIsAWatchUpdateWhateverTheInstances() {
    assertThat(NoopUpdateClassifier.cause(false, false)).isEqualTo(UpdateCause.WATCH);
    assertThat(NoopUpdateClassifier.cause(false, true)).isEqualTo(UpdateCause.WATCH);
  }

  @Test
  void aSyncOfTheSameInstanceIsAPeriodicResync() {
    assertThat(NoopUpdateClassifier.cause(true, true)).isEqualTo(UpdateCause.RESYNC);
  }

  @Test
  void aSyncOfAFreshCopyIsARelist() {
    assertThat(NoopUpdateClassifier.cause(true, false)).isEqualTo(UpdateCause.RELIST);
  }

  @ParameterizedTest(name = "old={0} new={1} -> unchanged={2}")
  @CsvSource(
      value = {"5,5,true", "5,6,false", "6,5,false", "NULL,5,false", "5,NULL,false", "NULL,NULL,false", "'','',false"},
      nullValues = "NULL")
  void theResourceVersionIsUnchangedOnlyWhenBothAreKnownAndEqual(String oldVersion, String newVersion, boolean unchanged) {
    assertThat(NoopUpdateClassifier.resourceVersionUnchanged(oldVersion, newVersion)).isEqualTo(unchanged);
  }

  @Test
  void aNoopIsEnqueuedWhenTheHandlerAddedToAQueue() {
    assertThat(NoopUpdateClassifier.outcome(true, true)).isEqualTo(NoopOutcome.ENQUEUED);
    assertThat(NoopUpdateClassifier.outcome(false, true)).isEqualTo(NoopOutcome.ENQUEUED);
  }

  @Test
  void aNoopIsDroppedWhenQueueAddsAreObservableAndNoneHappened() {
    assertThat(NoopUpdateClassifier.outcome(true, false)).isEqualTo(NoopOutcome.DROPPED);
  }

  @Test
  void aNoopIsUnknownWhenNoQueueAddCouldHaveBeenSeen() {
    assertThat(NoopUpdateClassifier.outcome(false, false)).isEqualTo(NoopOutcome.UNKNOWN);
  }
}
