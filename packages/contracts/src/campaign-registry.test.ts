import {
  CAMPAIGN_RECORD_LIMITS,
  assembleCampaignRecord,
  campaignPartKey,
  campaignUrlDigest,
  parseCampaignPartKey,
  toCampaignValues,
  type CampaignRecord,
} from './campaign-registry';
import {
  decodeCampaignHeader,
  decodeCampaignPart,
  encodeCampaignHeader,
  encodeCampaignPart,
} from './campaign-registry-codec';

const enc = new TextEncoder();

const record: CampaignRecord = {
  token: 'Xy_9-abcDEFghiJKLmnoPQRstuVWXyz0123456789ab',
  owner_id: '123456789012345',
  revision: 7,
  name: 'Spring sale',
  urls: [
    'https://news.example/article?id=42',
    'https://shop.example/spring?lang=de&page=2',
    'https://xn--bcher-kva.example/buch/1',
  ],
  start_date: '2026-03-01',
  end_date: '2026-05-31',
  timezone: 'Europe/Berlin',
  reach: 250_000,
  objective: 'Reach',
  target_countries: ['AT', 'CH', 'DE'],
  target_source: 'campaign',
};

/** Writes and reads a record the way the services do: header and parts encoded, decoded, assembled. */
function roundTrip(value: CampaignRecord) {
  const { header, parts } = toCampaignValues(value);
  const decoded = decodeCampaignHeader(encodeCampaignHeader(header))!;
  const decodedParts = parts.map((p) => {
    const key = parseCampaignPartKey(campaignPartKey(p.token, p.revision, p.index))!;
    return decodeCampaignPart(encodeCampaignPart(p), key)?.urls;
  });
  return { header, parts, assembled: assembleCampaignRecord(decoded, decodedParts) };
}

/** A real-looking URL of exactly `length` characters: tracking parameters, a click id, percent-encoding. */
function longUrl(i: number, length: number): string {
  const base = `https://www.shop.example/c/${i}?utm_source=news&utm_medium=email&gclid=EAIaIQob${i}&q=caf%C3%A9&pad=`;
  return base + 'x'.repeat(length - base.length);
}

describe('campaign registry contract', () => {
  test('when a record is written and read, then it comes back unchanged, its URLs inline', () => {
    const { header, parts, assembled } = roundTrip(record);
    expect(parts).toEqual([]);
    expect(header.deleted).toBeUndefined();
    expect(assembled).toEqual(record);
  });

  test('when a record has no name, no reach, no objective and no countries, then it comes back so', () => {
    const bare: CampaignRecord = {
      ...record,
      name: undefined,
      reach: null,
      objective: null,
      target_countries: [],
      target_source: 'none',
      urls: [],
    };
    delete bare.name;
    expect(roundTrip(bare).assembled).toEqual(bare);
  });

  test('when a tombstone is written and read, then it is a tombstone with its revision and owner', () => {
    const tombstone = { token: record.token, owner_id: record.owner_id, revision: 8, deleted: true as const };
    const { parts, assembled } = roundTrip(tombstone as never);
    expect(parts).toEqual([]);
    expect(assembled).toEqual(tombstone);
  });

  test('when a campaign has 500 content URLs, then they travel inline in one value under 1 MB', () => {
    const urls = Array.from({ length: 500 }, (_, i) => longUrl(i, 200)).sort();
    const { header, parts, assembled } = roundTrip({ ...record, urls });
    expect(parts).toHaveLength(0);
    expect(encodeCampaignHeader(header).length).toBeLessThan(1024 * 1024);
    expect(assembled).toEqual({ ...record, urls });
  });

  test('when the largest campaign management allows (5000 URLs of 2048 characters) is written, then it is split into parts, each value under 1 MB, and read back whole', () => {
    const urls = Array.from({ length: 5000 }, (_, i) => longUrl(i, 2048)).sort();
    const { header, parts, assembled } = roundTrip({ ...record, urls });
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.length).toBeLessThanOrEqual(CAMPAIGN_RECORD_LIMITS.parts);
    expect(header).toMatchObject({ url_parts: parts.length, url_count: 5000 });
    expect(header).not.toHaveProperty('urls');
    for (const value of [encodeCampaignHeader(header), ...parts.map(encodeCampaignPart)])
      expect(value.length).toBeLessThan(512 * 1024);
    expect(assembled).toEqual({ ...record, urls });
  });

  test('when the contract limit of URLs, each of the longest length and escaped at worst, is written, then it still fits its parts', () => {
    const worst = (i: number) => `https://a.example/?q=${'\\'.repeat(CAMPAIGN_RECORD_LIMITS.urlLength - 30)}${i}`;
    const urls = Array.from({ length: CAMPAIGN_RECORD_LIMITS.urls }, (_, i) => worst(i));
    const { parts } = toCampaignValues({ ...record, urls });
    expect(parts.length).toBeLessThanOrEqual(CAMPAIGN_RECORD_LIMITS.parts);
    expect(Math.max(...parts.map((p) => encodeCampaignPart(p).length))).toBeLessThan(512 * 1024);
  });

  test('when a part is missing, or parts of another revision stand in, then nothing is assembled', () => {
    const urls = Array.from({ length: 3000 }, (_, i) => longUrl(i, 300)).sort();
    const { header, parts } = toCampaignValues({ ...record, urls });
    const lists = parts.map((p) => p.urls);
    expect(assembleCampaignRecord(header, lists)).toBeDefined();
    expect(assembleCampaignRecord(header, lists.slice(1))).toBeUndefined();
    expect(assembleCampaignRecord(header, [lists[1]!, lists[0]!, ...lists.slice(2)])).toBeUndefined();
    const other = toCampaignValues({ ...record, urls: urls.slice(1) });
    expect(
      assembleCampaignRecord(
        header,
        other.parts.map((p) => p.urls),
      ),
    ).toBeUndefined();
    // a part decoded under the key of another revision or index is refused
    const key = { token: record.token, revision: record.revision, index: 0 };
    expect(decodeCampaignPart(encodeCampaignPart(parts[0]!), key)).toBeDefined();
    expect(decodeCampaignPart(encodeCampaignPart(parts[0]!), { ...key, revision: 6 })).toBeUndefined();
    expect(decodeCampaignPart(encodeCampaignPart(parts[0]!), { ...key, index: 1 })).toBeUndefined();
  });

  test('when a record is past the limits, then the writer refuses it rather than write what no reader accepts', () => {
    const urls = Array.from({ length: CAMPAIGN_RECORD_LIMITS.urls + 1 }, (_, i) => `https://a.example/${i}`);
    expect(() => toCampaignValues({ ...record, urls })).toThrow(RangeError);
  });

  test('when the URLs inline differ from the count or the digest, then the header reads as no campaign', () => {
    const { header } = toCampaignValues(record);
    const tampered = { ...header, urls: [...record.urls, 'https://evil.example/'] };
    expect(assembleCampaignRecord(decodeCampaignHeader(encodeCampaignHeader(tampered))!)).toBeUndefined();
    expect(campaignUrlDigest(record.urls)).toMatch(/^[0-9a-f]{64}$/);
  });

  const valid = () => JSON.parse(new TextDecoder().decode(encodeCampaignHeader(toCampaignValues(record).header)));
  test.each([
    ['not JSON', 'not a record'],
    ['JSON but an array', '[1,2]'],
    ['null', 'null'],
    ['a token with a dot (a part key)', { token: 'a.b' }],
    ['a token that is an operator', { token: '$where' }],
    ['an owner id that is not digits', { owner_id: '12ab' }],
    ['an owner id as a number', { owner_id: 123 }],
    ['a negative revision', { revision: -1 }],
    ['a fractional revision', { revision: 1.5 }],
    ['a date that does not exist', { start_date: '2026-02-30' }],
    ['a date with a time', { end_date: '2026-05-31T00:00:00Z' }],
    ['an unknown time zone', { timezone: 'Mars/Olympus' }],
    ['a time zone as an object', { timezone: { $ne: '' } }],
    ['a reach as a string', { reach: '1000' }],
    ['a country that is no alpha-2 code', { target_countries: ['Germany'] }],
    ['too many countries', { target_countries: Array(301).fill('DE') }],
    ['an unknown target source', { target_source: 'everyone' }],
    ['a URL that is not a string', { urls: ['https://a.example/', 42] }],
    ['an oversized URL', { urls: [`https://a.example/${'a'.repeat(5000)}`] }],
    ['an oversized name', { name: 'n'.repeat(1001) }],
    ['both inline URLs and parts', { url_parts: 2 }],
    ['no URLs and no parts', { urls: undefined }],
    ['a digest that is not hex', { url_digest: 'x'.repeat(64) }],
  ])('when the value is %s, then it reads as no campaign and nothing throws', (_, change) => {
    const raw = typeof change === 'string' ? change : JSON.stringify({ ...valid(), ...change });
    expect(decodeCampaignHeader(enc.encode(raw))).toBeUndefined();
  });

  test('when bytes are not even UTF-8, then decoding answers undefined', () => {
    expect(decodeCampaignHeader(new Uint8Array([0xff, 0xfe, 0x00, 0x7b]))).toBeUndefined();
    expect(decodeCampaignPart(new Uint8Array([0xff]), { token: 'a', revision: 1, index: 0 })).toBeUndefined();
  });

  test('when a key is parsed, then only a part key yields token, revision and index', () => {
    expect(parseCampaignPartKey(campaignPartKey(record.token, 12, 3))).toEqual({
      token: record.token,
      revision: 12,
      index: 3,
    });
    expect(parseCampaignPartKey(record.token)).toBeUndefined();
    expect(parseCampaignPartKey('a.b.c')).toBeUndefined();
    expect(parseCampaignPartKey('a.99999999999999999.0')).toBeUndefined();
  });
});
