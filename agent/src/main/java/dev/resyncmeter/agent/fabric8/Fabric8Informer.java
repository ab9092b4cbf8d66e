package dev.resyncmeter.agent.fabric8;

import dev.resyncmeter.collector.InformerMetrics;

/** One fabric8 informer: its kind, its meters, and why its watch last closed. */
final class Fabric8Informer {
  final String kind;
  final InformerMetrics metrics;
  /** The last watch closed with 410 Gone: the relist that follows is {@code expired}. */
  volatile boolean watchGone;

  Fabric8Informer(String kind, InformerMetrics metrics) {
    this.kind = kind;
    this.metrics = metrics;
  }
}
