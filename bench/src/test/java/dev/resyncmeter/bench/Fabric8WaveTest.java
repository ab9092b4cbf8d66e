package dev.resyncmeter.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resyncmeter.bench.PeerAgents.Config;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The fabric8 wave's pure parts: its queue's dedup, and where its runs go in the e2e section's rounds. */
class Fabric8WaveTest {

  @Test
  void aKeyIsQueuedOnceUntilAWorkerTakesItAndAgainAfter() throws Exception {
    Fabric8Wave.KeyQueue queue = new Fabric8Wave.KeyQueue();

    assertThat(queue.add("default/cm-1")).isTrue();
    assertThat(queue.add("default/cm-2")).isTrue();
    assertThat(queue.add("default/cm-1")).as("already waiting").isFalse();
    assertThat(queue.size()).isEqualTo(2);

    assertThat(queue.take()).isEqualTo("default/cm-1");
    // taken: a new notification for it must queue it again, as its reconcile may have read the old state
    assertThat(queue.add("default/cm-1")).isTrue();
    assertThat(queue.take()).isEqualTo("default/cm-2");
    assertThat(queue.take()).isEqualTo("default/cm-1");
    assertThat(queue.size()).isZero();
  }

  @Test
  void theHandlerQueuesTheNamespaceAndNameOfEveryObjectAndCountsItsCalls() throws Exception {
    Fabric8Wave program = new Fabric8Wave(2, 2);
    Fabric8Wave.KeyQueue queue = new Fabric8Wave.KeyQueue();
    Fabric8Wave.EnqueueHandler handler = new Fabric8Wave.EnqueueHandler(queue, program);
    List<io.fabric8.kubernetes.api.model.ConfigMap> items = Fabric8Wave.configMaps(2);

    handler.onAdd(items.get(0));
    handler.onUpdate(items.get(1), items.get(1));
    handler.onUpdate(items.get(1), items.get(1));

    assertThat(queue.size()).isEqualTo(2);
    assertThat(queue.take()).isEqualTo("default/cm-0");
    assertThat(queue.take()).isEqualTo("default/cm-1");
  }

  @Test
  void aWaveStartsOnlyWhenTheLastIsDoneAndWavesRemain() {
    Fabric8Wave program = new Fabric8Wave(2, 2);

    assertThat(program.startWave()).as("the first list").isTrue();
    assertThat(program.startWave()).as("a tick during the list").isFalse();
    program.handlerCalled(true);
    program.handlerCalled(true);
    program.reconciled();
    assertThat(program.startWave()).as("one reconcile missing").isFalse();
    program.reconciled();
    assertThat(program.startWave()).as("the list done: the resync wave").isTrue();
    program.handlerCalled(false);
    program.handlerCalled(false);
    program.reconciled();
    program.reconciled();
    assertThat(program.startWave()).as("no wave left").isFalse();
  }

  @Test
  void theFabric8WaveRunsInTheClientJavaWavesRoundsItsPeersInTheFirstAndTheSmokeWithoutPeers() {
    for (Mode mode : Mode.values()) {
      PipelineRuns.Settings fabric8 = PipelineSection.fabric8Settings(mode);
      assertThat(fabric8.runs()).as(mode.key()).isLessThanOrEqualTo(PipelineSection.settings(mode, false).runs());
    }
    assertThat(PipelineSection.fabric8Settings(Mode.QUICK).runs()).isEqualTo(PipelineSection.PEER_PIPELINE_RUNS);
    assertThat(PipelineSection.fabric8Settings(Mode.FULL).runs()).isGreaterThan(PipelineSection.PEER_PIPELINE_RUNS);
    assertThat(PipelineSection.roundOf(Mode.FULL, 0)).containsExactlyElementsOf(PeerAgents.rotated(0));
    assertThat(PipelineSection.roundOf(Mode.FULL, PipelineSection.PEER_PIPELINE_RUNS)).containsExactly(Config.RESYNC_METER, Config.NONE);
    assertThat(PipelineSection.roundOf(Mode.SMOKE, 1)).containsExactly(Config.RESYNC_METER, Config.NONE);
    assertThat(PipelineSection.roundOf(Mode.SMOKE, 0)).containsExactly(Config.NONE, Config.RESYNC_METER);
  }
}
