import {
  decodeEventMessage,
  encodeEventMessage,
  EVENT_LIMITS,
  isPlainValidEventMessage,
  validateEventMessage,
  type EventMessage,
} from './event-message';
import { ATTRIBUTION_LIMITS, UTM_FIELDS } from './attribution';
import { MEASURE_NAMES } from './measures';

// a small seeded PRNG (mulberry32): the same samples on every run, so a failure reproduces
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = prng(20261122);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
const hex = (n: number): string => Array.from({ length: n }, () => pick('0123456789abcdef'.split(''))).join('');
const text = (n: number): string =>
  Array.from({ length: n }, () => pick(['a', 'Z', '0', ' ', '/', '-', 'é', '$', '.', '\u2603'])).join('');

/** Measures as a hit carries them: some of the three, at and between the limits; none is the field left out. */
function measures(): { measures?: Record<string, number> } {
  const m: Record<string, number> = {};
  for (const name of MEASURE_NAMES)
    if (random() < 0.4)
      m[name] = pick([0, 1, EVENT_LIMITS.measureMax[name], Math.floor(random() * EVENT_LIMITS.measureMax[name])]);
  return Object.keys(m).length === 0 ? {} : { measures: m };
}

/** Attribution as ingest records it: some UTM values and a referring host, or none (each absent when empty). */
function attribution(): Record<string, string> {
  const a: Record<string, string> = {};
  for (const field of UTM_FIELDS)
    if (random() < 0.3) a[field] = pick(['fb', 'Spring Sale!', text(1 + Math.floor(random() * 30)), 'u'.repeat(256)]);
  if (random() < 0.3) a.referrer = pick(['news.example', 'xn--bcher-kva.example', '[::1]', 'www.google.com']);
  return a;
}

/** A message as ingest publishes it, or as it published before events carried a visitor, measures, a country or attribution. */
function validMessage(): EventMessage {
  const metadata: Record<string, string> = {};
  const keys = Math.floor(random() * (EVENT_LIMITS.metadataKeys + 1));
  for (let i = 0; i < keys; i++) metadata[`k${i}_${hex(2)}`] = text(Math.floor(random() * 20));
  const visitor = random() < 0.8 ? { visitor: Math.floor(random() * EVENT_LIMITS.visitorBound) } : {};
  // most events have a country; unknown ones (and those from before countries existed) have none
  const country = random() < 0.7 ? { country: pick(['FR', 'US', 'DE', 'JP', 'BR', 'XK', 'AQ']) } : {};
  return {
    ...visitor,
    ...measures(),
    ...country,
    ...attribution(),
    v: 1,
    id: `${hex(8)}-${hex(4)}-7${hex(3)}-${pick(['8', '9', 'a', 'b'])}${hex(3)}-${hex(12)}`,
    owner_id: String(Math.floor(random() * 1e9)),
    name: text(1 + Math.floor(random() * 20)),
    url: pick(['', `https://pub.example/${text(10)}`]),
    content_id: pick(['', `c-${hex(6)}`]),
    device_type: pick(['desktop', 'tablet', 'mobile'] as const),
    bot: random() < 0.1,
    metadata,
    created: new Date(Date.UTC(2000, 0, 1) + Math.floor(random() * 1e12)).toISOString(),
  };
}

const ANY = [undefined, null, 0, 1, -1, 1.5, true, false, '', ' ', '1', 'true', [], ['a'], {}, { a: 'b' }];
const uuid = hex(8) + '-' + hex(4) + '-' + hex(4) + '-' + hex(4) + '-' + hex(12);
/** Edge values per field, at and across every limit and format boundary. */
const EDGES: Record<keyof EventMessage, unknown[]> = {
  v: [...ANY, 2, '1', 1.0],
  id: [
    ...ANY,
    uuid,
    uuid.toUpperCase(),
    `{${uuid}}`,
    `(${uuid})`,
    `[${uuid}`,
    uuid.replace(/-/g, ''),
    uuid.replace(/-/g, ':'),
    uuid.slice(1),
    `${uuid}0`,
    uuid.replace(/^./, 'g'),
    ` ${uuid}`,
  ],
  owner_id: [
    ...ANY,
    '0',
    '123',
    '12a',
    ' 123',
    '123\n',
    '\u0661\u0662',
    '1'.repeat(EVENT_LIMITS.ownerIdMax),
    '1'.repeat(EVENT_LIMITS.ownerIdMax + 1),
    '-1',
    '1.5',
  ],
  name: [
    ...ANY,
    'x',
    'x'.repeat(EVENT_LIMITS.nameMax),
    'x'.repeat(EVENT_LIMITS.nameMax + 1),
    '\u2603'.repeat(EVENT_LIMITS.nameMax),
    '\ud83d\ude00'.repeat(EVENT_LIMITS.nameMax / 2 + 1),
  ],
  url: [...ANY, 'u'.repeat(EVENT_LIMITS.urlMax), 'u'.repeat(EVENT_LIMITS.urlMax + 1)],
  content_id: [...ANY, 'c'.repeat(EVENT_LIMITS.contentIdMax), 'c'.repeat(EVENT_LIMITS.contentIdMax + 1)],
  device_type: [...ANY, 'desktop', 'tablet', 'mobile', 'Desktop', 'tv', ' mobile'],
  bot: [...ANY, 'false', 0, 1],
  metadata: [
    ...ANY,
    { $a: 'x' },
    { 'a.b': 'x' },
    { a$: 'x' },
    { '': 'x' },
    { 'a\u0000': 'x' },
    { constructor: 'x' },
    { toString: 'x' },
    { a: 1 },
    { a: null },
    { a: ['x'] },
    { a: { b: 'c' } },
    { a: '' },
    { ['k'.repeat(EVENT_LIMITS.metadataKeyMax)]: 'x' },
    { ['k'.repeat(EVENT_LIMITS.metadataKeyMax + 1)]: 'x' },
    { a: 'v'.repeat(EVENT_LIMITS.metadataValueMax) },
    { a: 'v'.repeat(EVENT_LIMITS.metadataValueMax + 1) },
    Object.fromEntries(Array.from({ length: EVENT_LIMITS.metadataKeys }, (_, i) => [`k${i}`, 'x'])),
    Object.fromEntries(Array.from({ length: EVENT_LIMITS.metadataKeys + 1 }, (_, i) => [`k${i}`, 'x'])),
  ],
  created: [
    ...ANY,
    '2026-11-22T10:20:30.123Z',
    '2026-11-22T10:20:30Z',
    '2026-11-22T10:20:30.1234Z',
    '2026-11-22T10:20:30.123',
    '2026-11-22T10:20:30.123+00:00',
    '2026-11-22 10:20:30.123Z',
    '2026-11-22t10:20:30.123z',
    '2026-11-22',
    '2026-13-01T00:00:00.000Z',
    '2026-00-01T00:00:00.000Z',
    '2026-02-30T00:00:00.000Z',
    '2026-04-31T00:00:00.000Z',
    '2026-01-32T00:00:00.000Z',
    '2026-01-01T24:00:00.000Z',
    '2026-01-01T23:60:00.000Z',
    '2026-01-01T23:59:60.000Z',
    '0000-01-01T00:00:00.000Z',
    '9999-12-31T23:59:59.999Z',
    '+275760-09-13T00:00:00.000Z',
    '20261122T102030.123Z',
    'not a date',
  ],
  visitor: [
    ...ANY,
    0,
    2 ** 31,
    2 ** 52 - 1,
    2 ** 52,
    2 ** 53,
    Number.MAX_SAFE_INTEGER,
    -0,
    0.5,
    1e300,
    '123',
    String(2 ** 52 - 1),
  ],
  utm_source: [],
  utm_medium: [],
  utm_campaign: [],
  utm_content: [],
  utm_term: [],
  referrer: [
    ...ANY,
    'news.example',
    'xn--bcher-kva.example',
    '[::1]',
    'News.Example',
    'https://news.example/a?q=secret',
    'news.example/path',
    'user@news.example',
    'news example',
    'h'.repeat(ATTRIBUTION_LIMITS.referrerMax),
    'h'.repeat(ATTRIBUTION_LIMITS.referrerMax + 1),
    { $ne: null },
  ],
  measures: [
    ...ANY,
    { engaged_ms: 0 },
    { engaged_ms: 3_600_000, scroll_depth: 100, value: 1e12 },
    { engaged_ms: 3_600_001 },
    { scroll_depth: 101 },
    { value: 1e12 + 1 },
    { value: -1 },
    { value: -0 },
    { scroll_depth: 50.5 },
    { engaged_ms: '10' },
    { value: 1e300 },
    { value: null },
    { value: [1] },
    { value: { a: 1 } },
    { other: 1 },
    { constructor: 1 },
    { toString: 1 },
    { valueOf: 1 },
    { engaged_ms: 1, extra: 1 },
  ],
  country: [
    ...ANY,
    'FR',
    'XK',
    'fr',
    'Fr',
    'FRA',
    'F',
    'F1',
    ' FR',
    'FR ',
    'É1',
    '\u0130S',
    '\uff26\uff32',
    'UK\n',
    250,
    ['FR'],
    { code: 'FR' },
  ],
};
for (const field of UTM_FIELDS)
  EDGES[field] = [
    ...ANY,
    'x',
    'Spring Sale!',
    'u'.repeat(ATTRIBUTION_LIMITS.utmMax),
    'u'.repeat(ATTRIBUTION_LIMITS.utmMax + 1),
    '\ud83d\ude00'.repeat(ATTRIBUTION_LIMITS.utmMax / 2),
    { $gt: '' },
  ];
const FIELDS = Object.keys(EDGES) as (keyof EventMessage)[];

/** A valid message with 1..3 fields replaced by edge values, or a key added or removed. */
function mutated(): Record<string, unknown> {
  const m: Record<string, unknown> = { ...validMessage() };
  const changes = 1 + Math.floor(random() * 3);
  for (let c = 0; c < changes; c++) {
    const roll = random();
    if (roll < 0.05) m[pick(['extra', 'V', 'ID', '_id'])] = pick(ANY);
    else if (roll < 0.1) delete m[pick(FIELDS)];
    else m[pick(FIELDS)] = pick(EDGES[pick(FIELDS)] ?? ANY);
  }
  return m;
}

/** What the consumer actually receives: JSON text. `__proto__` must be spliced into the text to stay an own key. */
function wire(m: Record<string, unknown>): string {
  const json = JSON.stringify(m);
  if (random() < 0.02)
    return json.replace(/"metadata":\{(\}?)/, (_, close: string) => `"metadata":{"__proto__":"x"${close || ','}`);
  if (random() < 0.01) return json.replace(/^\{/, '{"__proto__":{"v":1},');
  return json;
}

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('event message decoding', () => {
  test('when thousands of generated messages are checked, then the fast check never accepts what Joi refuses and decoding always agrees with Joi', () => {
    let fastAccepted = 0;
    let joiAccepted = 0;
    const samples = 10_000;
    for (let i = 0; i < samples; i++) {
      const json = wire(i % 4 === 0 ? { ...validMessage() } : mutated());
      const parsed: unknown = JSON.parse(json);
      const joi = validateEventMessage(JSON.parse(json));
      if (isPlainValidEventMessage(parsed)) {
        fastAccepted++;
        if (!joi.ok) throw new Error(`fast check accepted what Joi refuses (${joi.reason}): ${json}`);
      }
      if (joi.ok) joiAccepted++;
      // the decoder's verdict, value and reason are Joi's, whichever path decided
      const decoded = decodeEventMessage(bytes(json));
      if (JSON.stringify(decoded) !== JSON.stringify(joi))
        throw new Error(`decoder and Joi disagree on ${json}: ${JSON.stringify(decoded)}`);
    }
    // both kinds are well represented, and nearly everything Joi accepts takes the fast path
    expect(joiAccepted).toBeGreaterThan(samples * 0.25);
    expect(samples - joiAccepted).toBeGreaterThan(samples * 0.25);
    expect(fastAccepted).toBeGreaterThan(joiAccepted * 0.9);
  });

  test('when a message is in the shape ingest publishes, then the fast check accepts it', () => {
    for (let i = 0; i < 2000; i++)
      expect(isPlainValidEventMessage(JSON.parse(new TextDecoder().decode(encodeEventMessage(validMessage()))))).toBe(
        true,
      );
  });

  test('when a message carries a visitor or none (published before visitors existed), then both take the fast path; a visitor outside [0, 2^52) is refused', () => {
    const { visitor: _, ...old } = validMessage();
    expect(isPlainValidEventMessage(old)).toBe(true);
    expect(isPlainValidEventMessage({ ...old, visitor: 2 ** 52 - 1 })).toBe(true);
    for (const visitor of [2 ** 52, -1, 1.5, '7'])
      expect(decodeEventMessage(bytes(JSON.stringify({ ...old, visitor })))).toMatchObject({ ok: false });
  });

  test('when a message carries measures or none (published before measures existed), then both decode, the numbers as they came; measures out of range, fractional, as text, unknown or empty are refused', () => {
    const { measures: _m, ...old } = validMessage();
    expect(isPlainValidEventMessage(old)).toBe(true);
    expect(decodeEventMessage(bytes(JSON.stringify(old)))).toEqual({ ok: true, value: old });
    const full = { ...old, measures: { engaged_ms: 3_600_000, scroll_depth: 100, value: 1e12 } };
    expect(isPlainValidEventMessage(JSON.parse(JSON.stringify(full)))).toBe(true);
    expect(decodeEventMessage(bytes(JSON.stringify(full)))).toEqual({ ok: true, value: full });
    for (const m of [
      {},
      { engaged_ms: 3_600_001 },
      { scroll_depth: 101 },
      { value: 1e12 + 1 },
      { value: -1 },
      { scroll_depth: 1.5 },
      { engaged_ms: '5' },
      { clicks: 1 },
    ]) {
      expect(isPlainValidEventMessage({ ...old, measures: m })).toBe(false);
      expect(decodeEventMessage(bytes(JSON.stringify({ ...old, measures: m })))).toMatchObject({ ok: false });
    }
    expect(
      decodeEventMessage(bytes(JSON.stringify(old).replace(/^\{/, '{"measures":{"__proto__":{"value":1}},'))),
    ).toMatchObject({
      ok: false,
    });
  });

  test('when a message carries a country or none (unknown, or published before countries existed), then both take the fast path; anything but two upper-case letters is refused', () => {
    const { country: _c, ...old } = validMessage();
    expect(isPlainValidEventMessage(old)).toBe(true);
    expect(decodeEventMessage(bytes(JSON.stringify(old)))).toEqual({ ok: true, value: old });
    const withCountry = { ...old, country: 'XK' };
    expect(isPlainValidEventMessage(JSON.parse(JSON.stringify(withCountry)))).toBe(true);
    expect(decodeEventMessage(bytes(JSON.stringify(withCountry)))).toEqual({ ok: true, value: withCountry });
    for (const country of ['fr', 'FRA', 'F', '', ' FR', 'F1', '\u0130S', null, 33, ['FR']]) {
      expect(isPlainValidEventMessage({ ...old, country })).toBe(false);
      expect(decodeEventMessage(bytes(JSON.stringify({ ...old, country })))).toMatchObject({ ok: false });
    }
  });

  test('when a message carries attribution or none (published before it existed), then both take the fast path; a URL as referrer, upper case, empty or over-long values are refused', () => {
    const old = { ...validMessage() } as Record<string, unknown>;
    for (const field of [...UTM_FIELDS, 'referrer']) delete old[field];
    expect(isPlainValidEventMessage(old)).toBe(true);
    const full = {
      ...old,
      utm_source: 'newsletter',
      utm_medium: 'email',
      utm_campaign: 'Spring Sale!',
      utm_content: 'u'.repeat(ATTRIBUTION_LIMITS.utmMax),
      utm_term: 'running shoes',
      referrer: 'xn--bcher-kva.example',
    };
    expect(isPlainValidEventMessage(JSON.parse(JSON.stringify(full)))).toBe(true);
    expect(decodeEventMessage(bytes(JSON.stringify(full)))).toEqual({ ok: true, value: full });
    for (const bad of [
      { utm_source: '' },
      { utm_term: 'u'.repeat(ATTRIBUTION_LIMITS.utmMax + 1) },
      { utm_campaign: 5 },
      { referrer: 'https://news.example/a?q=secret' },
      { referrer: 'News.Example' },
      { referrer: '' },
      { referrer: 'h'.repeat(ATTRIBUTION_LIMITS.referrerMax + 1) },
    ]) {
      expect(isPlainValidEventMessage({ ...old, ...bad })).toBe(false);
      expect(decodeEventMessage(bytes(JSON.stringify({ ...old, ...bad })))).toMatchObject({ ok: false });
    }
  });

  test("when a message is refused, then the reason is Joi's, naming the field", () => {
    const m = { ...validMessage(), device_type: 'tv' };
    expect(decodeEventMessage(bytes(JSON.stringify(m)))).toEqual({
      ok: false,
      reason: '"device_type" must be one of [desktop, tablet, mobile]',
    });
    expect(decodeEventMessage(bytes('{"v":'))).toEqual({ ok: false, reason: 'not JSON' });
  });
});
