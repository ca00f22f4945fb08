import { prom, type Registry } from '@cm/platform';

export type PixelResult = 'stored' | 'bot' | 'unknown_owner' | 'invalid' | 'bad_redirect' | 'unavailable';

export interface IngestMetrics {
  count(result: PixelResult): void;
  redirected(): void;
  observe(seconds: number): void;
  /** Time from handing an event to the broker until its JetStream ack. */
  observePublish(seconds: number): void;
}

/** Label children are bound once: looking a label set up per request is measurable on the hot path. */
export function createIngestMetrics(registry: Registry): IngestMetrics {
  const requests = new prom.Counter({
    name: 'events_pixel_requests_total',
    help: 'Pixel hits by result (stored; bot: stored, never counted; unknown_owner: not stored; invalid; bad_redirect; unavailable: 503)',
    labelNames: ['result'],
    registers: [registry],
  });
  const results: Record<PixelResult, prom.Counter.Internal> = {
    stored: requests.labels('stored'),
    bot: requests.labels('bot'),
    unknown_owner: requests.labels('unknown_owner'),
    invalid: requests.labels('invalid'),
    bad_redirect: requests.labels('bad_redirect'),
    unavailable: requests.labels('unavailable'),
  };
  const redirects = new prom.Counter({ name: 'events_pixel_redirects_total', help: 'Pixel hits answered with a 302 to r', registers: [registry] });
  const duration = new prom.Histogram({
    name: 'events_pixel_duration_seconds',
    help: 'Pixel latency including the JetStream publish ack',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 2.5],
    registers: [registry],
  });
  const publish = new prom.Histogram({
    name: 'events_pixel_publish_duration_seconds',
    help: 'JetStream publish latency of pixel events (until the stream acknowledged)',
    buckets: [0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 2.5],
    registers: [registry],
  });
  return {
    count: (result) => results[result].inc(),
    observePublish: (seconds) => publish.observe(seconds),
    redirected: () => redirects.inc(),
    observe: (seconds) => duration.observe(seconds),
  };
}
