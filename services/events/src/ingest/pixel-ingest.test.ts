import { PixelIngest, type PixelIngestDeps } from './pixel-ingest';

/** Whatever the outage path must not touch: using it fails the test. */
function untouched<T extends object>(what: string): T {
  return new Proxy({} as T, {
    get(_target, prop) {
      throw new Error(`${what}.${String(prop)} used during an outage`);
    },
  });
}

/** A sink the broker is gone from: publishing or asking the broker would wait for a deadline. */
const goneSink = {
  available: false,
  published: 0,
  roundTrips: 0,
  publish() {
    this.published++;
    return new Promise<void>(() => undefined);
  },
  roundTrip() {
    this.roundTrips++;
    return new Promise<void>(() => undefined);
  },
};

const owners = {
  isReady: () => true,
  has: (id: string) => id === '42',
  redirectHosts: (id: string) => (id === '42' ? ['shop.example'] : undefined),
};

function ingest(): PixelIngest {
  const deps: PixelIngestDeps = {
    owners,
    sink: goneSink,
    devices: untouched('devices'),
    newId: () => 'e1',
    perClient: untouched('perClient'),
    perOwner: untouched('perOwner'),
    visitors: untouched('visitors'),
    countries: untouched('countries'),
  };
  return new PixelIngest(deps);
}

const params = (entries: Record<string, string>) => new Map(Object.entries(entries));

describe('the pixel during a broker outage', () => {
  // "at once" as an outcome: the answer is decided before any I/O that would wait for a deadline
  test.each([
    [
      'a known owner',
      params({ owner_id: '42', name: 'impression', url: 'https://pub.example/a?utm_source=news&gclid=Cj0KCQ' }),
      undefined,
    ],
    ['an unknown owner', params({ owner_id: '999999999', name: 'impression' }), undefined],
    [
      'a click with an allowed r',
      params({ owner_id: '42', name: 'click', r: 'https://shop.example/landing' }),
      'https://shop.example/landing',
    ],
  ])(
    'when the broker is known to be gone and %s hits the pixel, then it is unavailable without publishing or asking the broker',
    async (_who, hit, redirect) => {
      const outcome = await ingest().record(hit, 'Mozilla/5.0', undefined, '203.0.113.7', '203.0.113.7');
      expect(outcome).toEqual({ kind: 'unavailable', reason: 'broker disconnected', redirect });
      expect([goneSink.published, goneSink.roundTrips]).toEqual([0, 0]);
    },
  );
});
