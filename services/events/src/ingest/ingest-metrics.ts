import { prom, type Registry } from '@cm/platform';

export type PixelResult =
  'stored' | 'bot' | 'unknown_owner' | 'rate_limited' | 'invalid' | 'bad_redirect' | 'unavailable';

export interface IngestMetrics {
  count(result: PixelResult): void;
  limited(scope: 'ip' | 'owner'): void;
  redirected(): void;
  observe(seconds: number): void;
  /** One group-commit message acknowledged: its events, bytes, and the time until the stream's ack. */
  batch(events: number, bytes: number, seconds: number): void;
  /** A publish attempt repeated under the same message id (leader election, reconnect, timeout). */
  retried(): void;
}

/** Label children are bound once: looking a label set up per request is measurable on the hot path. */
export function createIngestMetrics(registry: Registry): IngestMetrics {
  const requests = new prom.Counter({
    name: 'events_pixel_requests_total',
    help: 'Pixel hits by result (stored; bot: stored, never counted; unknown_owner and rate_limited: not stored; invalid; bad_redirect; unavailable: 503)',
    labelNames: ['result'],
    registers: [registry],
  });
  const results: Record<PixelResult, prom.Counter.Internal> = {
    stored: requests.labels('stored'),
    bot: requests.labels('bot'),
    unknown_owner: requests.labels('unknown_owner'),
    rate_limited: requests.labels('rate_limited'),
    invalid: requests.labels('invalid'),
    bad_redirect: requests.labels('bad_redirect'),
    unavailable: requests.labels('unavailable'),
  };
  const limitedBy = new prom.Counter({
    name: 'events_pixel_rate_limited_total',
    help: 'Pixel hits not stored because a flood limit was reached, by the limit (ip: per client address; owner: per owner_id)',
    labelNames: ['scope'],
    registers: [registry],
  });
  const scopes = { ip: limitedBy.labels('ip'), owner: limitedBy.labels('owner') };
  const redirects = new prom.Counter({
    name: 'events_pixel_redirects_total',
    help: 'Pixel hits answered with a 302 to r',
    registers: [registry],
  });
  const duration = new prom.Histogram({
    name: 'events_pixel_duration_seconds',
    help: 'Pixel latency including the JetStream publish ack',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 2.5, 5],
    registers: [registry],
  });
  const publish = new prom.Histogram({
    name: 'events_pixel_publish_duration_seconds',
    help: 'JetStream publish latency of one group-commit message (until the stream acknowledged it, retries included)',
    buckets: [0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 2.5, 5],
    registers: [registry],
  });
  const batchEvents = new prom.Histogram({
    name: 'events_ingest_batch_events',
    help: 'Events per group-commit message',
    buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000],
    registers: [registry],
  });
  const batchBytes = new prom.Counter({
    name: 'events_ingest_published_bytes_total',
    help: 'Bytes of acknowledged group-commit messages',
    registers: [registry],
  });
  const retries = new prom.Counter({
    name: 'events_ingest_publish_retries_total',
    help: 'Publish attempts repeated under the same message id (no responders during a leader election, lost acks after a reconnect, attempt timeouts)',
    registers: [registry],
  });
  return {
    count: (result) => results[result].inc(),
    limited: (scope) => scopes[scope].inc(),
    redirected: () => redirects.inc(),
    observe: (seconds) => duration.observe(seconds),
    batch(events, bytes, seconds) {
      batchEvents.observe(events);
      batchBytes.inc(bytes);
      publish.observe(seconds);
    },
    retried: () => retries.inc(),
  };
}
