import { prom, type Registry } from '@cm/platform';
import type { EventOutcome, Settlement } from './consumer-outcome';

export interface ConsumerMetrics {
  batch(messages: number, events: number, seconds: number): void;
  /** Events by outcome (an unreadable message dead-lettered whole counts as one). */
  events(kind: EventOutcome['kind'], n: number): void;
  /** Messages by how they were settled. */
  settled(action: Settlement['action'], n: number): void;
  redelivered(n: number): void;
  pending(n: number): void;
}

export function createConsumerMetrics(registry: Registry): ConsumerMetrics {
  const batchSize = new prom.Histogram({
    name: 'events_consumer_batch_size',
    help: 'Events per write batch handled by the consumer',
    buckets: [1, 10, 50, 100, 250, 500, 1000, 2500, 5000],
    registers: [registry],
  });
  const batchMessages = new prom.Histogram({
    name: 'events_consumer_batch_messages',
    help: 'JetStream messages per write batch (each v2 message carries several events)',
    buckets: [1, 5, 10, 25, 50, 100, 250, 500, 1000],
    registers: [registry],
  });
  const batchSeconds = new prom.Histogram({
    name: 'events_consumer_batch_duration_seconds',
    help: 'Time to write and settle one batch',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [registry],
  });
  const events = new prom.Counter({
    name: 'events_consumer_events_total',
    help: "Events by outcome: written, duplicate (already stored), dropped (past retention), dead_lettered, retry (its message nak'ed, redelivered later)",
    labelNames: ['outcome'],
    registers: [registry],
  });
  const byKind = {
    written: events.labels('written'),
    duplicate: events.labels('duplicate'),
    dropped: events.labels('dropped'),
    dead_lettered: events.labels('dead_lettered'),
    retry: events.labels('retry'),
  };
  const messages = new prom.Counter({
    name: 'events_consumer_messages_total',
    help: 'JetStream messages by settlement: ack (every event done), nak (redelivered later), term (dead-lettered whole)',
    labelNames: ['settlement'],
    registers: [registry],
  });
  const byAction = { ack: messages.labels('ack'), nak: messages.labels('nak'), term: messages.labels('term') };
  const redeliveries = new prom.Counter({
    name: 'events_consumer_redeliveries_total',
    help: 'Messages delivered more than once',
    registers: [registry],
  });
  const lag = new prom.Gauge({
    name: 'events_consumer_pending',
    help: 'Messages in the stream not yet delivered to the consumer (num_pending)',
    registers: [registry],
  });
  return {
    batch(messageCount, eventCount, seconds) {
      batchSize.observe(eventCount);
      batchMessages.observe(messageCount);
      batchSeconds.observe(seconds);
    },
    events: (kind, n) => byKind[kind].inc(n),
    settled: (action, n) => byAction[action].inc(n),
    redelivered: (n) => redeliveries.inc(n),
    pending: (n) => lag.set(n),
  };
}
