import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger } from '@cm/platform';
import {
  BROWSER_UA,
  startEventsHarness,
  uniqueTag,
  waitUntil,
  type EventsHarness,
} from '../../test/support/events-harness';
import { TEST_BUILD_DATE, TEST_NETWORKS, testCountryFile } from '../../test/support/country-fixtures';
import { startEvents } from '../composition-root';

// Behind one trusted proxy the client address is the last X-Forwarded-For entry: the tests play
// visitors from anywhere through it, against a country file of their own.
const dir = mkdtempSync(path.join(tmpdir(), 'country-'));
const file = path.join(dir, 'countries.mmdb');
let h: EventsHarness;
let owner: string;

/** Replaces the file as an operator should: written beside it, then renamed over it. */
function replaceFile(bytes: Buffer): void {
  const next = path.join(dir, `next-${Date.now()}.mmdb`);
  writeFileSync(next, bytes);
  renameSync(next, file);
}

beforeAll(async () => {
  writeFileSync(file, testCountryFile());
  h = await startEventsHarness({
    PIXEL_TRUSTED_PROXY_HOPS: '1',
    COUNTRY_DB_PATH: file,
    COUNTRY_DB_RELOAD_INTERVAL_MS: '100',
  });
  owner = await h.registerOwner();
});
afterAll(async () => {
  await h.stop();
  rmSync(dir, { recursive: true, force: true });
});

const hit = (content_id: string, forwardedFor: string) =>
  h.pixel(
    {
      owner_id: owner,
      name: 'impression',
      content_id,
      url: 'https://news.example/world/2026/11/story?utm_source=newsletter&gclid=EAIaIQobChMI#comments',
    },
    { headers: { 'user-agent': BROWSER_UA, 'x-forwarded-for': forwardedFor } },
  );

/** A sample of /metrics: the line of `name` holding every label pair in `labels` (the registry adds service="events"). */
async function metric(name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = await (await fetch(`${h.baseUrl}/metrics`)).text();
  const pairs = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const line = text
    .split('\n')
    .find((l) => (l.startsWith(`${name}{`) || l.startsWith(`${name} `)) && pairs.every((p) => l.includes(p)));
  return line === undefined ? 0 : Number(line.split(' ').pop());
}

describe('the visitor country at ingest', () => {
  test('when hits come from visitors in several countries, then each stored event carries its country, an unknown one none, and no event holds an address', async () => {
    const visitors: [string, string, string | undefined][] = [
      // [X-Forwarded-For as the proxy sends it, what the test calls the hit, the country]
      ['198.51.100.23', 'ipv4', 'FR'],
      ['::ffff:203.0.113.9', 'mapped', 'JP'],
      ['2001:db8:1:4a2f::17', 'ipv6', 'DE'],
      ['192.0.2.10', 'geoip2-layout', 'BR'],
      // the client wrote the left entry itself: the proxy's entry decides
      ['203.0.113.77, 198.51.100.99', 'spoofed', 'FR'],
      ['203.0.113.77, 10.20.30.40', 'spoofed-private', undefined],
      ['127.0.0.1', 'loopback', undefined],
      ['198.51.101.5', 'not-in-database', undefined],
    ];
    const tags = visitors.map(([, what]) => uniqueTag(what));
    const before = { known: await metric('events_country_lookups_total', { outcome: 'known' }) };
    for (const [i, [forwardedFor]] of visitors.entries()) expect((await hit(tags[i]!, forwardedFor)).status).toBe(200);

    const docs = await h.waitForStored(visitors.length, { content_id: { $in: tags } });
    for (const [i, [, what, country]] of visitors.entries()) {
      const doc = docs.find((d) => d.content_id === tags[i])!;
      if (country === undefined) expect({ what, has: 'country' in doc }).toEqual({ what, has: false });
      else expect({ what, country: doc.country }).toEqual({ what, country });
    }
    // the address is never stored: not as a field, not inside any value
    const stored = JSON.stringify(docs);
    for (const [forwardedFor] of visitors)
      for (const address of forwardedFor.split(', ')) expect(stored).not.toContain(address);
    expect(stored).not.toContain('4a2f');
    expect(await metric('events_country_lookups_total', { outcome: 'known' })).toBe(before.known + 5);
    expect(await metric('events_country_lookups_total', { reason: 'not_public' })).toBeGreaterThanOrEqual(2);
    expect(await metric('events_country_lookups_total', { reason: 'not_found' })).toBeGreaterThanOrEqual(1);
    expect(await metric('events_country_database_build_timestamp_seconds')).toBe(TEST_BUILD_DATE.getTime() / 1000);
  });

  test('when the file is replaced by a newer one, then hits get countries from it without a restart; a broken replacement is refused and the newer one stays', async () => {
    const built = new Date('2026-11-01T00:00:00Z');
    replaceFile(testCountryFile({ ...TEST_NETWORKS, '198.51.100.0/24': { country_code: 'IT' } }, built));
    await waitUntil(
      async () => (await metric('events_country_database_build_timestamp_seconds')) === built.getTime() / 1000,
      5000,
      'the newer country file to be loaded',
    );
    const moved = uniqueTag('moved');
    await hit(moved, '198.51.100.23');
    expect((await h.waitForStored(1, { content_id: moved }))[0]!.country).toBe('IT');

    const failedBefore = await metric('events_country_database_reloads_total', { result: 'failed' });
    replaceFile(Buffer.from('network,country_code\n198.51.100.0/24,ES\n'));
    await waitUntil(
      async () => (await metric('events_country_database_reloads_total', { result: 'failed' })) > failedBefore,
      5000,
      'the broken file to be refused',
    );
    const still = uniqueTag('still');
    await hit(still, '198.51.100.23');
    expect((await h.waitForStored(1, { content_id: still }))[0]!.country).toBe('IT');
    expect(await metric('events_country_database_build_timestamp_seconds')).toBe(built.getTime() / 1000);
  });

  test.each([
    ['a file that does not exist', () => path.join(dir, 'missing.mmdb'), /no such file/],
    [
      'a gzip-compressed download',
      () => {
        const gz = path.join(dir, 'dbip-country-lite.mmdb.gz');
        writeFileSync(gz, Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]));
        return gz;
      },
      /gunzip/,
    ],
  ])(
    'when COUNTRY_DB_PATH names %s, then the ingest role does not start and says why',
    async (_what, pathOf, reason) => {
      const bad = pathOf();
      const started = startEvents(
        { ...h.config, EVENTS_ROLES: ['ingest'], COUNTRY_DB_PATH: bad },
        createLogger({ service: 'country-test', level: 'error', silent: true }),
        0,
      );
      await expect(started).rejects.toThrow(reason);
      await expect(started).rejects.toThrow(`COUNTRY_DB_PATH: ${bad} cannot be used as the country database`);
    },
  );
});
