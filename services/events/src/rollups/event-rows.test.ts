import { AGGREGATES } from '../metrics/registry';
import type { Aggregate } from '../metrics/aggregate';
import { buildHourPipeline } from './hour-pipeline';
import { eventRowOf, fieldsRead } from './event-rows';

const GROUP = buildHourPipeline(new Date(0), new Date(1))[1]!.$group;
const CREATED = new Date('2026-10-20T13:45:00.250Z');

describe('event rows', () => {
  test('when an event is evaluated alone, then its row is the group of one: counts 1, the latest event itself, hour of the UTC day', () => {
    const row = eventRowOf(GROUP)({
      _id: 'e1',
      owner_id: '7001',
      name: 'view',
      device_type: 'mobile',
      url: 'https://XN--BCHER-KVA.example/?utm_source=x&gclid=1#f',
      created: CREATED,
      visitor: 42,
      measures: { engaged_ms: 1500 },
      metadata: { campaign: 'spring' },
    });
    expect(row._id).toMatchObject({
      o: '7001',
      h: 13,
      n: 'view',
      d: 'mobile',
      url: 'https://XN--BCHER-KVA.example/?utm_source=x&gclid=1#f',
      content_id: '',
      v: 42,
      me: 1500,
    });
    expect(row.n).toBe(1);
    expect(row.l).toEqual({ c: CREATED, i: 'e1', m: { campaign: 'spring' } });
  });

  test('when fields are missing, then an expression object leaves them out and $ifNull gives its fallback', () => {
    const row = eventRowOf(GROUP)({ _id: 'e2', owner_id: '7001', name: 'click', created: CREATED });
    const id = row._id as Record<string, unknown>;
    expect('v' in id || 'me' in id || 'd' in id).toBe(false);
    expect(id.country).toBe('');
    expect(row.l).toEqual({ c: CREATED, i: 'e2', m: {} });
  });

  test('when a value starts with $ or holds an operator, then it stays a value (never a field path or an operator)', () => {
    const row = eventRowOf(GROUP)({
      _id: 'e3',
      owner_id: '7001',
      name: '$where',
      content_id: '$gt',
      utm_campaign: '{"$ne":1}',
      created: CREATED,
      metadata: { $x: '$y' },
    });
    expect(row._id).toMatchObject({ n: '$where', content_id: '$gt', utm_campaign: '{"$ne":1}' });
    expect((row.l as { m: unknown }).m).toEqual({ $x: '$y' });
  });

  test('when created is not a date, then the row fails (the hour cannot be told)', () => {
    expect(() => eventRowOf(GROUP)({ _id: 'e4', owner_id: '7001', name: 'x', created: '2026-10-20' })).toThrow(
      /not a date/,
    );
  });

  test('when the group uses an operator outside the subset, then compiling it fails', () => {
    expect(() => eventRowOf({ _id: '$a', s: { $avg: '$b' } })).toThrow(/\$avg is not supported/);
    expect(() => eventRowOf({ _id: { $toUpper: '$a' } })).toThrow(/\$toUpper is not supported/);
  });

  test('when the fields read are listed, then they are the top-level fields the group names', () => {
    expect(fieldsRead(GROUP)).toEqual(
      expect.arrayContaining(['_id', 'created', 'measures', 'metadata', 'owner_id', 'visitor']),
    );
    expect(fieldsRead(GROUP)).not.toContain('bot');
  });

  test("when an event's row has a compact form, then it is what the row's state compacts to, for web-shaped and odd events", () => {
    // a UUIDv7 whose time is CREATED, as ingest assigns ids
    const id = `${CREATED.getTime()
      .toString(16)
      .padStart(12, '0')
      .replace(/^(.{8})/, '$1-')}-7abc-8def-0123456789ab`;
    const base = {
      _id: id,
      owner_id: '7001',
      name: 'view',
      created: CREATED,
      device_type: 'desktop',
      visitor: 2 ** 40 + 3,
    };
    const events = [
      base,
      { ...base, country: 'DE', url: 'https://shop.example/p?utm_campaign=spring&fbclid=x#top' },
      { ...base, country: 'de' },
      { ...base, country: { $ne: 'DE' } },
      { ...base, visitor: undefined },
      { ...base, visitor: 2 ** 52 },
      { ...base, visitor: 1.5 },
      { ...base, visitor: '42' },
      { ...base, metadata: { campaign: 'spring' } },
      { ...base, metadata: { n: 1, ok: true, nested: { a: 'b' } } },
      { ...base, metadata: '' },
      { ...base, metadata: 'x' },
      { ...base, metadata: [1, 2] },
      { ...base, metadata: ['a'] },
      { ...base, metadata: null },
      { ...base, _id: 'not-a-uuid' },
      { ...base, _id: id.toUpperCase() },
      { ...base, created: new Date(CREATED.getTime() + 1) },
      { ...base, measures: { engaged_ms: 1500, value: 1999 } },
    ];
    const row = eventRowOf(GROUP);
    let forms = 0;
    for (const [name, aggregate] of Object.entries(AGGREGATES) as Array<[string, Aggregate<unknown>]>) {
      if (!aggregate.compactOfRow) continue;
      for (const event of events) {
        const r = row(event);
        const state = aggregate.fromRow(r);
        const expected = aggregate.isEmpty(state) ? undefined : aggregate.compact?.(state);
        const form = aggregate.compactOfRow(r);
        if (form !== undefined) forms++;
        expect({ name, event, form }).toStrictEqual({ name, event, form: expected });
      }
    }
    expect(forms).toBeGreaterThan(20);
  });
});
