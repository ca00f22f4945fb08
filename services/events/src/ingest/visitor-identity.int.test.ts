import { Writable } from 'node:stream';
import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import winston from 'winston';
import { createLogger } from '@cm/platform';
import { startEvents, type EventsSystem } from '../composition-root';
import {
  BROWSER_UA,
  startEventsHarness,
  uniqueTag,
  waitUntil,
  type EventsHarness,
} from '../../test/support/events-harness';

// Behind one trusted proxy the client address is the last X-Forwarded-For entry.
let h: EventsHarness;
let second: EventsSystem | undefined;
let owner: string;
const logLines: string[] = [];

beforeAll(async () => {
  // everything the service logs, at every level, is kept for the privacy test
  const logger = createLogger({ service: 'visitor-test', level: 'silly' });
  logger.clear();
  logger.add(
    new winston.transports.Stream({
      stream: new Writable({ write: (chunk, _enc, done) => (logLines.push(String(chunk)), done()) }),
    }),
  );
  h = await startEventsHarness({ PIXEL_TRUSTED_PROXY_HOPS: '1' }, logger);
  owner = await h.registerOwner(undefined, ['dest.example']);
});
afterAll(async () => {
  await second?.stop();
  await h.stop();
});

const hit = (base: string, params: Record<string, string>, address: string, ua = BROWSER_UA) =>
  fetch(`${base}/v1/v.gif?${new URLSearchParams({ owner_id: owner, name: 'impression', ...params })}`, {
    redirect: 'manual',
    headers: { 'user-agent': ua, 'x-forwarded-for': address },
  });

describe('visitor identity at ingest', () => {
  test('when the same cookieless visitor hits two ingest processes in one salt period, then both events carry the same visitor', async () => {
    second = await startEvents(
      { ...h.config, EVENTS_ROLES: ['ingest'] },
      createLogger({ service: 'x', level: 'error', silent: true }),
      0,
    );
    await waitUntil(() => second!.owners?.has(owner) ?? false, 5000, 'the owner in the second ingest registry');
    const [a, b, other] = [uniqueTag('p1'), uniqueTag('p2'), uniqueTag('p3')];
    expect((await hit(h.baseUrl, { content_id: a }, '198.51.100.23')).status).toBe(200);
    expect((await hit(`http://127.0.0.1:${second.port}`, { content_id: b }, '198.51.100.23')).status).toBe(200);
    expect((await hit(h.baseUrl, { content_id: other }, '198.51.100.24')).status).toBe(200);
    const docs = await h.waitForStored(3, { content_id: { $in: [a, b, other] } });
    const visitorOf = (c: string) => docs.find((d) => d.content_id === c)!.visitor;
    expect(Number.isInteger(visitorOf(a))).toBe(true);
    expect(visitorOf(b)).toBe(visitorOf(a));
    expect(visitorOf(other)).not.toBe(visitorOf(a));
  });

  test('when hits carry the same vid from different addresses, then they are one visitor, apart from the cookieless one', async () => {
    const [a, b, anon] = [uniqueTag('v1'), uniqueTag('v2'), uniqueTag('v3')];
    await hit(h.baseUrl, { content_id: a, vid: 'login-77' }, '198.51.100.30');
    await hit(h.baseUrl, { content_id: b, vid: 'login-77' }, '198.51.100.31', 'curl/8.5');
    await hit(h.baseUrl, { content_id: anon }, '198.51.100.30');
    const docs = await h.waitForStored(3, { content_id: { $in: [a, b, anon] } });
    const visitorOf = (c: string) => docs.find((d) => d.content_id === c)!.visitor;
    expect(visitorOf(b)).toBe(visitorOf(a));
    expect(visitorOf(anon)).not.toBe(visitorOf(a));
    // a bot hit is stored with its visitor too (reports leave bots out)
    expect(docs.find((d) => d.content_id === b)!.bot).toBe(true);
  });

  test.each([
    ['129 characters long', 'v'.repeat(129), 'vid must be at most 128 characters'],
    ['repeated', ['a', 'b'], 'vid must be given once'],
  ])(
    'when vid is %s, then 400 naming vid and nothing is stored; with an allowed r still 302',
    async (_what, vid, message) => {
      const content_id = uniqueTag('badvid');
      const vids = ([] as string[])
        .concat(vid)
        .map((v) => `&vid=${v}`)
        .join('');
      const res = await h.pixel(`owner_id=${owner}&name=impression&content_id=${content_id}${vids}`);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: { details: [{ field: 'vid', message }] } });
      const r = encodeURIComponent('https://dest.example/landing');
      const redirected = await h.pixel(`owner_id=${owner}&name=click&content_id=${content_id}${vids}&r=${r}`);
      expect(redirected.status).toBe(302);
      expect(redirected.headers.get('location')).toBe('https://dest.example/landing');
      expect(await h.storedAfterMarker(owner, { content_id })).toEqual([]);
    },
  );

  test('when hits carry a distinctive vid and client address, then neither appears in any collection, stream message or log line, and the visitor does', async () => {
    const vid = 'Zq7-visitor-in-clear-Xk29';
    const address = '203.0.113.187';
    const content_id = uniqueTag('privacy');
    expect((await hit(h.baseUrl, { content_id, vid }, address)).status).toBe(200);
    expect((await hit(h.baseUrl, { content_id }, address)).status).toBe(200);
    expect((await hit(h.baseUrl, { content_id, vid: `${vid}${'x'.repeat(200)}` }, address)).status).toBe(400);
    const stored = await h.waitForStored(2, { content_id });
    expect(stored.every((d) => typeof d.visitor === 'number')).toBe(true);

    const dump: string[] = [];
    for (const { name } of await h.db.listCollections({}, { nameOnly: true }).toArray())
      dump.push(JSON.stringify(await h.db.collection(name).find({}).toArray()));
    const jsm = await jetstreamManager(h.nc);
    for (const stream of [h.config.EVENTS_STREAM, `${h.config.EVENTS_STREAM}_DLQ`]) {
      const { state } = await jsm.streams.info(stream);
      for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
        const m = await jsm.streams.getMessage(stream, { seq }).catch(() => null);
        if (m) dump.push(m.subject, new TextDecoder().decode(m.data), JSON.stringify(m.header ?? {}));
      }
    }
    const salts = await new Kvm(h.nc).open(h.config.VISITOR_SALT_BUCKET);
    for await (const key of await salts.keys()) dump.push(key);
    expect(logLines.length).toBeGreaterThan(0);
    const everything = [...dump, ...logLines].join('\n');
    expect(everything).toContain(content_id);
    expect(everything).toContain(String(stored[0]!.visitor));
    expect(everything).not.toContain(vid);
    expect(everything).not.toContain(address);
    expect(everything).not.toContain(encodeURIComponent(vid));
  });
});
