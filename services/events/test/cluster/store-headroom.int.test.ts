import { startNatsServer, type LocalServer } from '@cm/testkit';
import { BROWSER_UA, newOwnerId, startEventsHarness, type EventsHarness } from '../support/events-harness';

/**
 * deploy/nats sizing at a small scale: JetStream's max_file_store above the events stream's and
 * the dead-letter stream's byte limits. A full events stream refuses new events (the pixel says
 * 503), and the owner registry bucket still takes writes: a flood cannot lock out new owners.
 */
const MB = 1024 * 1024;
let nats: LocalServer;
let h: EventsHarness;

beforeAll(async () => {
  nats = await startNatsServer({ maxFileStore: '8MB' });
  h = await startEventsHarness({
    NATS_URL: nats.url,
    EVENTS_STREAM_MAX_BYTES: String(4 * MB),
    EVENTS_DLQ_MAX_BYTES: String(MB),
    EVENTS_ROLES: 'ingest',
  });
}, 60000);
afterAll(async () => {
  await h?.stop();
  await nats?.stop();
});

describe('JetStream storage headroom for the owner registry', () => {
  test('when the events stream is full, then the pixel answers 503 and a new owner can still be registered', async () => {
    const owner = await h.registerOwner(newOwnerId());
    const metadata = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, 'x'.repeat(500)]));
    // large events first, then small ones to the brim (a pixel event is a few hundred bytes)
    let refused: unknown;
    for (const meta of [metadata, {}]) {
      refused = undefined;
      for (let i = 0; i < 20000 && !refused; i++) {
        try {
          await h.publishEvent({ owner_id: owner, metadata: meta });
        } catch (err) {
          refused = err;
        }
      }
      expect(String(refused)).toMatch(/maximum bytes/i);
    }

    const pixel = await h.pixel({ owner_id: owner, name: 'impression' }, { headers: { 'user-agent': BROWSER_UA } });
    expect(pixel.status).toBe(503);

    const later = await h.registerOwner(newOwnerId());
    expect(h.system.owners?.has(later)).toBe(true);
  }, 60000);
});
