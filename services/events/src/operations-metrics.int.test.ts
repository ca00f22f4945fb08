import {
  BROWSER_UA as BROWSER,
  SIGNAL_WAIT_MS,
  startEventsHarness,
  waitUntil,
  type EventsHarness,
} from '../test/support/events-harness';

const BOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

let h: EventsHarness;
/** When the service was started: its first retention pass runs after this. */
let startedAt: number;

beforeAll(async () => {
  startedAt = Date.now();
  h = await startEventsHarness();
});
afterAll(async () => {
  await h.stop();
});

async function scrape(): Promise<string> {
  return (await fetch(`${h.baseUrl}/metrics`)).text();
}

function value(text: string, series: RegExp): number {
  const line = text.split('\n').find((l) => series.test(l));
  return line ? Number(line.split(' ').pop()) : NaN;
}

test('when a browser and a bot hit the pixel, then /metrics tells stored from bot and times the publish', async () => {
  const owner = await h.registerOwner();
  expect((await h.pixel({ owner_id: owner, name: 'impression' }, { headers: { 'user-agent': BROWSER } })).status).toBe(
    200,
  );
  expect((await h.pixel({ owner_id: owner, name: 'impression' }, { headers: { 'user-agent': BOT } })).status).toBe(200);
  expect((await h.pixel({ owner_id: '999', name: 'impression' }, { headers: { 'user-agent': BROWSER } })).status).toBe(
    200,
  );
  expect((await h.pixel({ name: 'impression' })).status).toBe(400);
  const text = await scrape();
  expect(value(text, /^events_pixel_requests_total\{result="stored"/)).toBe(1);
  expect(value(text, /^events_pixel_requests_total\{result="bot"/)).toBe(1);
  expect(value(text, /^events_pixel_requests_total\{result="unknown_owner"/)).toBe(1);
  expect(value(text, /^events_pixel_requests_total\{result="invalid"/)).toBe(1);
  expect(value(text, /^events_pixel_publish_duration_seconds_count/)).toBe(2);
});

test('when the registry has been replayed, then its size and readiness are exported', async () => {
  await h.registerOwner();
  const text = await scrape();
  expect(value(text, /^events_owner_registry_ready/)).toBe(1);
  expect(value(text, /^events_owner_registry_owners/)).toBeGreaterThanOrEqual(1);
});

test('when a retention pass has run, then the time of the last success is exported', async () => {
  await waitUntil(
    async () => value(await scrape(), /^events_retention_last_success_timestamp_seconds/) > 0,
    SIGNAL_WAIT_MS,
    'a retention pass',
  );
  const text = await scrape();
  // the time of a pass of this service's: since it started, not later than now
  const last = value(text, /^events_retention_last_success_timestamp_seconds/);
  expect(last).toBeGreaterThanOrEqual(Math.floor(startedAt / 1000));
  expect(last).toBeLessThanOrEqual(Date.now() / 1000);
  expect(value(text, /^events_retention_dropped_buckets_total/)).toBe(0);
});

test('when the consumer role runs, then the fill level of the events stream is exported against its limits', async () => {
  const owner = await h.registerOwner();
  expect((await h.pixel({ owner_id: owner, name: 'impression' }, { headers: { 'user-agent': BROWSER } })).status).toBe(
    200,
  );
  // scrapes reuse the stream's state for up to 5 s: wait until one shows the stream holding something
  await waitUntil(
    async () => value(await scrape(), /^events_stream_messages/) >= 1,
    SIGNAL_WAIT_MS,
    'the stream state in /metrics',
  );
  const text = await scrape();
  const ratio = value(text, /^events_stream_fill_ratio/);
  const bytes = value(text, /^events_stream_bytes/);
  expect(bytes).toBeGreaterThan(0);
  expect(ratio).toBeCloseTo(bytes / h.config.EVENTS_STREAM_MAX_BYTES, 6);
  expect(value(text, /^events_stream_messages/)).toBeGreaterThanOrEqual(1);
});
