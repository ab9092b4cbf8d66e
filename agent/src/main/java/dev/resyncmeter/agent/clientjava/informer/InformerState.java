package dev.resyncmeter.agent.clientjava.informer;

import dev.resyncmeter.collector.InformerMetrics;

/** One client-java informer: its kind and the resync check period its timer runs at. */
final class InformerState {
  final String kind;
  final long resyncCheckPeriodMillis;
  final InformerMetrics metrics;

  InformerState(String kind, long resyncCheckPeriodMillis, InformerMetrics metrics) {
    this.kind = kind;
    this.resyncCheckPeriodMillis = resyncCheckPeriodMillis;
    this.metrics = metrics;
  }
}
