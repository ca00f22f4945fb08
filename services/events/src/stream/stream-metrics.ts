import type { JetStreamManager } from '@nats-io/jetstream';
import { prom, type Registry } from '@cm/platform';

/** How often a scrape may ask JetStream for the stream's state (scrapes in between reuse it). */
const REFRESH_MS = 5000;

/**
 * Fill level of the events stream. It discards new messages at its byte and message limits, so
 * a full stream means every pixel answers 503: alert well before (events_stream_fill_ratio > 0.8).
 * The ratio is the larger of bytes / max_bytes and messages / max_msgs (0 when unbounded).
 */
export function streamFillMetrics(registry: Registry, jsm: JetStreamManager, stream: string): void {
  let fetched = 0;
  let state = { bytes: 0, messages: 0, ratio: 0 };
  let inFlight: Promise<void> | undefined;
  // the three gauges are collected together: they share one request and one state
  const refresh = (): Promise<void> => {
    if (inFlight) return inFlight;
    if (Date.now() - fetched < REFRESH_MS) return Promise.resolve();
    fetched = Date.now();
    inFlight = fetchState().finally(() => (inFlight = undefined));
    return inFlight;
  };
  const fetchState = async () => {
    try {
      const info = await jsm.streams.info(stream);
      const ofLimit = (used: number, limit: number) => (limit > 0 ? used / limit : 0);
      state = {
        bytes: info.state.bytes,
        messages: info.state.messages,
        ratio: Math.max(
          ofLimit(info.state.bytes, info.config.max_bytes),
          ofLimit(info.state.messages, info.config.max_msgs),
        ),
      };
    } catch {
      // broker unreachable: keep the last known state (readiness reports the outage)
    }
  };
  // `name: '...'` literals: scripts/check-k8s.mjs finds the exported metric names by them
  const gauges = [
    {
      name: 'events_stream_fill_ratio',
      help: 'Fill level of the events stream, 0..1 (bytes or messages over their limit, whichever is fuller); at 1 the pixel answers 503',
      value: () => state.ratio,
    },
    { name: 'events_stream_bytes', help: 'Bytes held by the events stream', value: () => state.bytes },
    {
      name: 'events_stream_messages',
      help: 'Messages held by the events stream (each carries one or more events)',
      value: () => state.messages,
    },
  ];
  for (const { name, help, value } of gauges) {
    new prom.Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        await refresh();
        this.set(value());
      },
    });
  }
}
