import { encodeMetadataKey } from '../../storage/metadata-key';
import { newOwnerId, startReportingHarness, type ReportingHarness } from '../../../test/support/reporting-harness';

let h: ReportingHarness;
let apiKey: string;
const owner = newOwnerId();
const other = newOwnerId();
const at = (iso: string) => new Date(iso);
const meta = (m: Record<string, string>) =>
  Object.fromEntries(Object.entries(m).map(([k, v]) => [encodeMetadataKey(k), v]));

beforeAll(async () => {
  h = await startReportingHarness();
  apiKey = (await h.createKey([owner])).api_key;
  await h.insertEvents([
    // 2026-11-18
    {
      owner_id: owner,
      name: 'click',
      url: 'u1',
      content_id: 'c1',
      device_type: 'desktop',
      metadata: meta({ campaign: 'spring', variant: 'a' }),
      created: at('2026-11-18T10:00:00.000Z'),
    },
    {
      owner_id: owner,
      name: 'impression',
      url: 'u1',
      content_id: 'c1',
      device_type: 'mobile',
      created: at('2026-11-18T10:00:01.000Z'),
    },
    // 2026-11-19: three clicks around 12:00:00 and a bot
    {
      owner_id: owner,
      name: 'click',
      url: 'u2',
      content_id: 'c1',
      device_type: 'tablet',
      metadata: meta({ campaign: 'summer' }),
      created: at('2026-11-19T12:00:00.000Z'),
    },
    {
      owner_id: owner,
      name: 'click',
      url: 'u2',
      content_id: 'c2',
      device_type: 'mobile',
      created: at('2026-11-19T12:00:00.999Z'),
    },
    {
      owner_id: owner,
      name: 'click',
      url: 'u1',
      content_id: 'c2',
      device_type: 'desktop',
      metadata: meta({ campaign: 'summer2' }),
      created: at('2026-11-19T12:00:01.000Z'),
    },
    {
      owner_id: owner,
      name: 'impression',
      url: 'u2',
      content_id: 'c2',
      device_type: 'desktop',
      bot: true,
      created: at('2026-11-19T12:00:00.500Z'),
    },
    // 2026-11-20
    {
      owner_id: owner,
      name: 'impression',
      url: 'u1',
      content_id: 'c1',
      device_type: 'desktop',
      metadata: meta({ campaign: 'autumn', variant: 'b' }),
      created: at('2026-11-20T08:00:00.000Z'),
    },
    {
      owner_id: owner,
      name: 'impression',
      url: 'u1',
      content_id: 'c1',
      device_type: 'mobile',
      metadata: meta({ campaign: 'winter', 'a.b': 'dotted', $x: 'dollar' }),
      created: at('2026-11-20T23:59:59.999Z'),
    },
    // another owner's event, same name, url and time
    { owner_id: other, name: 'click', url: 'u1', content_id: 'c1', created: at('2026-11-19T12:00:00.000Z') },
  ]);
});
afterAll(async () => {
  await h.stop();
});

const report = async (body: Record<string, unknown>) => {
  const res = await h.report(apiKey, { owner_id: owner, ...body });
  expect(res.status).toBe(200);
  return res.body;
};

describe('report answer', () => {
  test('when a report is answered, then it is UTF-8 JSON of its exact length and has no ETag (a POST is never revalidated)', async () => {
    // multi-byte text in the answer: its length is counted in bytes, not characters
    const reader = newOwnerId();
    const key = (await h.createKey([reader])).api_key;
    const url = 'https://bücher.example/straße/köln?utm_source=newsletter&gclid=Cj0KCQiA#kommentare';
    await h.insertEvents([{ owner_id: reader, name: 'view', url, created: at('2026-11-19T08:30:00.000Z') }]);
    const res = await h.report(key, { owner_id: reader, group_by: 'url' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([{ name: 'view', url, value: 1 }]);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(JSON.stringify(res.body)));
    expect(Number(res.headers.get('content-length'))).toBeGreaterThan(JSON.stringify(res.body).length);
    expect(res.headers.get('etag')).toBeNull();
  });
});

describe('report filters', () => {
  test('when only owner_id is given, then every non-bot event of that owner is counted by name, sorted', async () => {
    expect(await report({})).toEqual([
      { name: 'click', value: 4 },
      { name: 'impression', value: 3 },
    ]);
  });

  test.each([
    ['name string', { name: 'click' }, [{ name: 'click', value: 4 }]],
    ['name list', { name: ['impression', 'nope'] }, [{ name: 'impression', value: 3 }]],
    [
      'url string',
      { url: 'u1' },
      [
        { name: 'click', value: 2 },
        { name: 'impression', value: 3 },
      ],
    ],
    [
      'url list',
      { url: ['u1', 'u2'] },
      [
        { name: 'click', value: 4 },
        { name: 'impression', value: 3 },
      ],
    ],
    ['content_id string', { content_id: 'c2' }, [{ name: 'click', value: 2 }]],
    [
      'content_id list',
      { content_id: ['c1'] },
      [
        { name: 'click', value: 2 },
        { name: 'impression', value: 3 },
      ],
    ],
    [
      'device_type string',
      { device_type: 'mobile' },
      [
        { name: 'click', value: 1 },
        { name: 'impression', value: 2 },
      ],
    ],
    [
      'device_type list',
      { device_type: ['desktop', 'tablet'] },
      [
        { name: 'click', value: 3 },
        { name: 'impression', value: 1 },
      ],
    ],
    ['url + name + device_type', { url: 'u2', name: 'click', device_type: 'mobile' }, [{ name: 'click', value: 1 }]],
    [
      'all filters + range',
      {
        name: 'impression',
        url: 'u1',
        content_id: 'c1',
        device_type: ['desktop', 'mobile'],
        created__gte: '2026-11-20 00:00:00',
        created__lte: '2026-11-20 23:59:59',
      },
      [{ name: 'impression', value: 2 }],
    ],
    ['a value nothing has', { url: 'https://nowhere.example/' }, []],
  ])('when filtering by %s, then only matching events count', async (_what, body, expected) => {
    expect(await report(body)).toEqual(expected);
  });

  test('when the only matching event is a bot, then nothing is counted', async () => {
    expect(await report({ url: 'u2', content_id: 'c2', name: 'impression' })).toEqual([]);
  });
});

describe('report group_by', () => {
  test('when grouped by content_id, then rows carry content_id, sorted by name then content_id', async () => {
    expect(await report({ group_by: 'content_id' })).toEqual([
      { name: 'click', content_id: 'c1', value: 2 },
      { name: 'click', content_id: 'c2', value: 2 },
      { name: 'impression', content_id: 'c1', value: 3 },
    ]);
  });

  test('when grouped by url, then rows carry url', async () => {
    expect(await report({ group_by: ['url'] })).toEqual([
      { name: 'click', url: 'u1', value: 2 },
      { name: 'click', url: 'u2', value: 2 },
      { name: 'impression', url: 'u1', value: 3 },
    ]);
  });

  test('when grouped by both, then rows carry both and sort in the requested field order', async () => {
    expect(await report({ group_by: 'url,content_id' })).toEqual([
      { name: 'click', url: 'u1', content_id: 'c1', value: 1 },
      { name: 'click', url: 'u1', content_id: 'c2', value: 1 },
      { name: 'click', url: 'u2', content_id: 'c1', value: 1 },
      { name: 'click', url: 'u2', content_id: 'c2', value: 1 },
      { name: 'impression', url: 'u1', content_id: 'c1', value: 3 },
    ]);
  });
});

describe('report metadata', () => {
  test('when metadata keys are asked for, then values come from the latest matching event, "" when it lacks the key', async () => {
    expect(await report({ metadata: 'campaign,variant,a.b,$x,missing' })).toEqual([
      { name: 'click', value: 4, metadata: { campaign: 'summer2', variant: '', 'a.b': '', $x: '', missing: '' } },
      {
        name: 'impression',
        value: 3,
        metadata: { campaign: 'winter', variant: '', 'a.b': 'dotted', $x: 'dollar', missing: '' },
      },
    ]);
  });

  test('when metadata is combined with group_by and a range, then each group has its own latest event, across buckets', async () => {
    const rows = await report({ group_by: 'url', metadata: ['campaign'], created__lte: '2026-11-20 12:00:00' });
    expect(rows).toEqual([
      { name: 'click', url: 'u1', value: 2, metadata: { campaign: 'summer2' } },
      { name: 'click', url: 'u2', value: 2, metadata: { campaign: '' } },
      { name: 'impression', url: 'u1', value: 2, metadata: { campaign: 'autumn' } },
    ]);
  });

  test('when two events share the latest millisecond, then the one with the larger (later) id wins', async () => {
    const tie = newOwnerId();
    const key = (await h.createKey([tie])).api_key;
    const created = at('2026-11-19T09:00:00.000Z');
    await h.insertEvents([
      { _id: '0190a000-0000-7000-8000-000000000002', owner_id: tie, name: 'click', metadata: { k: 'second' }, created },
      { _id: '0190a000-0000-7000-8000-000000000001', owner_id: tie, name: 'click', metadata: { k: 'first' }, created },
    ]);
    expect((await h.report(key, { owner_id: tie, metadata: 'k' })).body).toEqual([
      { name: 'click', value: 2, metadata: { k: 'second' } },
    ]);
  });
});

describe('report time bounds', () => {
  test.each([
    ['the same second', '2026-11-19 12:00:00', '2026-11-19 12:00:00', 2],
    ['the next second', '2026-11-19 12:00:01', '2026-11-19 12:00:01', 1],
    ['the second before', '2026-11-19 00:00:00', '2026-11-19 11:59:59', 0],
    ['milliseconds (ISO)', '2026-11-19T12:00:00.500Z', '2026-11-19T12:00:00.999Z', 1],
    ['an ISO offset', '2026-11-19T13:00:00+01:00', '2026-11-19T13:00:00+01:00', 2],
    ['whole days', '2026-11-19', '2026-11-19', 3],
  ])('when the range is %s, then the clicks inside count (inclusive bounds)', async (_what, gte, lte, clicks) => {
    const rows = await report({ name: 'click', created__gte: gte, created__lte: lte });
    expect(rows).toEqual(clicks ? [{ name: 'click', value: clicks }] : []);
  });

  test('when the range crosses day buckets, then partial days at both ends are cut at the second', async () => {
    expect(await report({ created__gte: '2026-11-18 10:00:01', created__lte: '2026-11-20 08:00:00' })).toEqual([
      { name: 'click', value: 3 },
      { name: 'impression', value: 2 },
    ]);
  });

  test('when only one bound is given, then the other side is open', async () => {
    expect(await report({ created__gte: '2026-11-20 00:00:00' })).toEqual([{ name: 'impression', value: 2 }]);
    expect(await report({ created__lte: '2026-11-18 23:59:59' })).toEqual([
      { name: 'click', value: 1 },
      { name: 'impression', value: 1 },
    ]);
  });

  test('when an event sits in a bucket outside the range, then that bucket is not read at all', async () => {
    const q = newOwnerId();
    const key = (await h.createKey([q])).api_key;
    // misfiled on purpose: its created lies on the 19th but it is stored in the 17th's bucket
    await h.insertEvents(
      [{ owner_id: q, name: 'misfiled', created: at('2026-11-19T12:00:00.000Z') }],
      () => `${h.config.BUCKET_PREFIX}_20261117`,
    );
    expect(
      (await h.report(key, { owner_id: q, created__gte: '2026-11-19 00:00:00', created__lte: '2026-11-19 23:59:59' }))
        .body,
    ).toEqual([]);
    expect((await h.report(key, { owner_id: q })).body).toEqual([{ name: 'misfiled', value: 1 }]);
  });
});

describe('report owner scoping', () => {
  test('when the key is not scoped to the owner_id, then 403 and no data', async () => {
    const res = await h.report(apiKey, { owner_id: other });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: { code: 'forbidden', message: expect.any(String) } });
  });

  test('when a key is scoped to several owners, then each owner sees only its own events', async () => {
    const both = (await h.createKey([owner, other])).api_key;
    expect((await h.report(both, { owner_id: other })).body).toEqual([{ name: 'click', value: 1 }]);
    expect((await h.report(both, { owner_id: owner, name: 'click' })).body).toEqual([{ name: 'click', value: 4 }]);
  });
});
