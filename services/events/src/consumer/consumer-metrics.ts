import { prom, type Registry } from '@cm/platform';
import type { Outcome } from './consumer-outcome';

export interface ConsumerMetrics {
  batch(size: number, seconds: number): void;
  outcome(kind: Outcome['kind'], n?: number): void;
  redelivered(n?: number): void;
  pending(n: number): void;
}

export function createConsumerMetrics(registry: Registry): ConsumerMetrics {
  const batchSize = new prom.Histogram({
    name: 'events_consumer_batch_size',
    help: 'Messages per batch handled by the consumer',
    buckets: [1, 10, 50, 100, 250, 500, 1000, 2500, 5000],
    registers: [registry],
  });
  const batchSeconds = new prom.Histogram({
    name: 'events_consumer_batch_duration_seconds',
    help: 'Time to decode, write and settle one batch',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [registry],
  });
  const messages = new prom.Counter({
    name: 'events_consumer_messages_total',
    help: 'Messages by outcome: written, duplicate (already stored), dropped (past retention), dead_lettered, retry (nak with delay)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const byKind = {
    written: messages.labels('written'),
    duplicate: messages.labels('duplicate'),
    dropped: messages.labels('dropped'),
    dead_lettered: messages.labels('dead_lettered'),
    retry: messages.labels('retry'),
  };
  const redeliveries = new prom.Counter({ name: 'events_consumer_redeliveries_total', help: 'Messages delivered more than once', registers: [registry] });
  const lag = new prom.Gauge({ name: 'events_consumer_pending', help: 'Messages in the stream not yet delivered to the consumer (num_pending)', registers: [registry] });
  return {
    batch(size, seconds) {
      batchSize.observe(size);
      batchSeconds.observe(seconds);
    },
    outcome: (kind, n = 1) => byKind[kind].inc(n),
    redelivered: (n = 1) => redeliveries.inc(n),
    pending: (n) => lag.set(n),
  };
}
