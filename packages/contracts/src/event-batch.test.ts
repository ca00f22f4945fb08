import {
  decodeEventPayload,
  encodeEventBatch,
  encodeEventRecord,
  eventBatchOverhead,
  EVENT_BATCH_LIMITS,
} from './event-batch';
import { encodeEventMessage, validateEventRecord, type EventRecord } from './event-message';

let n = 0;
function record(partial: Partial<EventRecord> = {}): EventRecord {
  n++;
  return {
    id: `0193a000-0000-7000-8000-${String(n).padStart(12, '0')}`,
    owner_id: '42',
    name: 'impression',
    url: 'https://pub.example/a',
    content_id: `c${n}`,
    device_type: 'mobile',
    bot: false,
    metadata: { utm_source: 'x', 'a%2Eb': '\u2603' },
    created: '2026-11-22T10:00:00.123Z',
    ...partial,
  };
}
const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('event batch contract (v2)', () => {
  test('when events are encoded into a batch, then decoding gives every event back in order', () => {
    const events = [record(), record({ bot: true, metadata: {} }), record({ url: '', content_id: '' })];
    const data = encodeEventBatch('0193a000-0000-7000-8000-batch0000001', events.map(encodeEventRecord));
    expect(decodeEventPayload(data)).toEqual({
      ok: true,
      version: 2,
      events: events.map((value) => ({ ok: true, value })),
    });
  });

  test('when the byte overhead of a batch is computed, then it is exactly what encoding adds around the events', () => {
    const id = 'batch-\u00e9"x';
    const events = [record(), record()].map(encodeEventRecord);
    const eventBytes = events.reduce((sum, e) => sum + Buffer.byteLength(e), 0) + events.length - 1;
    expect(encodeEventBatch(id, events).length).toBe(
      eventBytes + Buffer.byteLength(JSON.stringify(id)) - JSON.stringify(id).length + eventBatchOverhead(id),
    );
  });

  test("when one event of a batch is invalid, then only that event is refused, with Joi's reason and the item as it came", () => {
    const good = record();
    const bad = { ...record(), device_type: 'tv' };
    const data = bytes(JSON.stringify({ v: 2, id: 'b1', events: [good, bad, good] }));
    const decoded = decodeEventPayload(data);
    expect(decoded).toEqual({
      ok: true,
      version: 2,
      events: [
        { ok: true, value: good },
        { ok: false, reason: '"device_type" must be one of [desktop, tablet, mobile]', raw: bad },
        { ok: true, value: good },
      ],
    });
  });

  test.each([
    ['not JSON', '{"v":2,', 'not JSON'],
    ['no events', JSON.stringify({ v: 2, id: 'b' }), 'a v2 message has exactly the fields v, id and events'],
    [
      'an extra field',
      JSON.stringify({ v: 2, id: 'b', events: [], x: 1 }),
      'a v2 message has exactly the fields v, id and events',
    ],
    [
      'an empty id',
      JSON.stringify({ v: 2, id: '', events: [{}] }),
      `"id" must be a string of 1..${EVENT_BATCH_LIMITS.idMax} characters`,
    ],
    [
      'an id object',
      JSON.stringify({ v: 2, id: { $gt: '' }, events: [{}] }),
      `"id" must be a string of 1..${EVENT_BATCH_LIMITS.idMax} characters`,
    ],
    [
      'events not a list',
      JSON.stringify({ v: 2, id: 'b', events: {} }),
      `"events" must be an array of 1..${EVENT_BATCH_LIMITS.maxEvents} events`,
    ],
    [
      'an empty list',
      JSON.stringify({ v: 2, id: 'b', events: [] }),
      `"events" must be an array of 1..${EVENT_BATCH_LIMITS.maxEvents} events`,
    ],
    [
      'too many events',
      JSON.stringify({ v: 2, id: 'b', events: Array.from({ length: EVENT_BATCH_LIMITS.maxEvents + 1 }, () => 0) }),
      `"events" must be an array of 1..${EVENT_BATCH_LIMITS.maxEvents} events`,
    ],
    ['an unknown version', JSON.stringify({ ...record(), v: 3 }), '"v" must be [1]'],
  ])('when a message has %s, then it is refused as a whole', (_what, text, reason) => {
    expect(decodeEventPayload(bytes(text))).toEqual({ ok: false, reason });
  });

  test('when a v1 message is read, then it is one event without the version field; an invalid v1 message is refused whole', () => {
    const event = record();
    expect(decodeEventPayload(encodeEventMessage({ v: 1, ...event }))).toEqual({
      ok: true,
      version: 1,
      events: [{ ok: true, value: event }],
    });
    expect(decodeEventPayload(encodeEventMessage({ v: 1, ...event, name: '' }))).toEqual({
      ok: false,
      reason: '"name" is not allowed to be empty',
    });
  });

  test("when batch items carry odd values, then each verdict is exactly Joi's", () => {
    const oddities: unknown[] = [
      null,
      1,
      'x',
      [],
      { ...record(), v: 1 },
      { ...record(), id: 'not-a-uuid' },
      { ...record(), metadata: { $where: 'x' } },
      { ...record(), metadata: { 'a.b': 'x' } },
      { ...record(), created: '2026-02-30T00:00:00.000Z' },
      { ...record(), created: '2026-11-22T10:00:00Z' },
      { ...record(), owner_id: { $gt: '' } },
      { ...record(), bot: 'false' },
    ];
    const decoded = decodeEventPayload(bytes(JSON.stringify({ v: 2, id: 'b', events: oddities })));
    if (!decoded.ok) throw new Error(decoded.reason);
    decoded.events.forEach((event, i) => {
      const joi = validateEventRecord(oddities[i]);
      expect(event.ok).toBe(joi.ok);
      if (!event.ok && !joi.ok) expect(event.reason).toBe(joi.reason);
    });
    // a JSON `__proto__` item key is an own key: the cheap check leaves it to Joi, whose verdict stands
    const item = encodeEventRecord(record()).replace('{', '{"__proto__":{"x":1},');
    const proto = decodeEventPayload(bytes(`{"v":2,"id":"b","events":[${item}]}`));
    expect(proto.ok && proto.events[0]!.ok).toBe(validateEventRecord(JSON.parse(item)).ok);
  });

  test('when batch items carry measures, none, or measures out of range, then the first two decode with their numbers and the third alone is refused', () => {
    const withMeasures = record({ measures: { engaged_ms: 1200, scroll_depth: 80, value: 1999 } });
    const without = record();
    const outOfRange = { ...record(), measures: { scroll_depth: 101 } };
    const data = bytes(JSON.stringify({ v: 2, id: 'b-m', events: [withMeasures, without, outOfRange] }));
    const decoded = decodeEventPayload(data);
    expect(decoded).toMatchObject({
      ok: true,
      events: [
        { ok: true, value: withMeasures },
        { ok: true, value: without },
        { ok: false, raw: outOfRange },
      ],
    });
    expect(decoded.ok && decoded.events[1]!.ok && 'measures' in decoded.events[1]!.value).toBe(false);
  });
});
