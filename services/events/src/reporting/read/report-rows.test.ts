import type { Latest } from '../../metrics/latest-aggregate';
import { encodeMetadataKey } from '../../storage/metadata-key';
import { QuantileBins } from '../../sketches/quantile-bins';
import { emptyQuantiles, quantilesOf, type QuantileSketch } from '../../sketches/quantile-sketch';
import type { SumsState } from '../../metrics/sums-aggregate';
import { parseReportRequest } from '../request/parse-report-request';
import type { ReportQuery } from '../request/report-query';
import { readPlanOf } from './read-plan';
import { reportGroup, type ReportGroup } from './report-group';
import { toReportRows as shape } from './report-rows';
import type { ReportRow } from './report-row';

const base: ReportQuery = parseReportRequest({ owner_id: '1' }, { maxRangeDays: 31 });

/** A group as these tests write it: its count, group fields and states by name. */
interface GroupCount {
  name: string;
  value: number;
  url?: string;
  content_id?: string;
  time?: number;
  latest?: Latest;
  sums?: SumsState;
  quantiles?: QuantileSketch[];
}

function toReportRows(groups: GroupCount[], query: ReportQuery, maxRows?: number): ReportRow[] {
  const plan = readPlanOf(query);
  const reportGroups: ReportGroup[] = groups.map((g) => {
    const states: Record<string, unknown> = { count: g.value };
    if (g.latest) states.latest = g.latest;
    if (plan.aggregates.includes('sums')) states.sums = g.sums ?? [0, 0, 0, 0, 0, 0];
    if (plan.aggregates.includes('quantiles'))
      states.quantiles = (g.quantiles ?? [emptyQuantiles(), emptyQuantiles(), emptyQuantiles()]).map((sketch) => {
        if (sketch.count === 0) return null;
        const bins = new QuantileBins();
        bins.addSketch(sketch);
        return bins;
      });
    const dims = query.groupBy.map((d) => (d === 'url' ? g.url : g.content_id) ?? '');
    return reportGroup(g.name, dims, states, g.time);
  });
  return shape(reportGroups, plan, maxRows);
}

describe('toReportRows', () => {
  test('when nothing is grouped, then rows are {name, value} sorted by name', () => {
    const groups: GroupCount[] = [
      { name: 'view', value: 2 },
      { name: 'click', value: 1 },
      { name: 'Zed', value: 4 },
    ];
    expect(toReportRows(groups, base)).toEqual([
      { name: 'Zed', value: 4 },
      { name: 'click', value: 1 },
      { name: 'view', value: 2 },
    ]);
  });

  test('when grouped, then rows carry the group fields and sort by name then the fields in request order', () => {
    const groups: GroupCount[] = [
      { name: 'click', url: 'b', content_id: 'x', value: 1 },
      { name: 'click', url: 'a', content_id: 'y', value: 2 },
      { name: 'click', url: 'a', content_id: 'x', value: 3 },
      { name: 'a', url: 'z', content_id: 'z', value: 4 },
    ];
    const rows = toReportRows(groups, { ...base, groupBy: ['url', 'content_id'] });
    expect(rows).toEqual([
      { name: 'a', url: 'z', content_id: 'z', value: 4 },
      { name: 'click', url: 'a', content_id: 'x', value: 3 },
      { name: 'click', url: 'a', content_id: 'y', value: 2 },
      { name: 'click', url: 'b', content_id: 'x', value: 1 },
    ]);
    expect(Object.keys(rows[0]!)).toEqual(['name', 'url', 'content_id', 'value']);
  });

  test('when metadata keys name Object.prototype members or look like indexes, then each is a plain own key of the row', () => {
    const groups: GroupCount[] = [
      { name: 'click', value: 1, latest: [0, 'x', { constructor: 'c', toString: 't', '7': 'seven' }] },
    ];
    const rows = toReportRows(groups, { ...base, metadataKeys: ['toString', 'constructor', '7', 'hasOwnProperty'] });
    expect(rows).toEqual([
      { name: 'click', value: 1, metadata: { toString: 't', constructor: 'c', '7': 'seven', hasOwnProperty: '' } },
    ]);
    expect(Object.getPrototypeOf(rows[0]!.metadata)).toBe(Object.prototype);
    expect(JSON.parse(JSON.stringify(rows[0]!.metadata))).toEqual({
      '7': 'seven',
      toString: 't',
      constructor: 'c',
      hasOwnProperty: '',
    });
  });

  test('when metadata was requested, then each row has it under the caller keys, "" when unknown', () => {
    const groups: GroupCount[] = [
      // stored metadata keys are escaped (storage/metadata-key.ts)
      { name: 'click', value: 1, latest: [0, 'x', { [encodeMetadataKey('a.b')]: 'v' }] },
      { name: 'view', value: 1 },
    ];
    expect(toReportRows(groups, { ...base, metadataKeys: ['a.b', '__proto__'] })).toEqual([
      { name: 'click', value: 1, metadata: { 'a.b': 'v', ['__proto__']: '' } },
      { name: 'view', value: 1, metadata: { 'a.b': '', ['__proto__']: '' } },
    ]);
  });
});

describe('toReportRows: series and top-N', () => {
  const t1 = Date.parse('2026-10-24T22:00:00Z');
  const t2 = Date.parse('2026-10-25T23:00:00Z');
  const series = [
    { time: t1, start: t1, end: t2 },
    { time: t2, start: t2, end: t2 + 86_400_000 },
  ];
  const q: ReportQuery = { ...base, series, interval: 'day', timeZone: 'Europe/Berlin' };

  test('when a series is shaped, then each row has its time with the zone offset first and rows sort by time, then name', () => {
    const rows = toReportRows(
      [
        { name: 'view', value: 1, time: t2 },
        { name: 'click', value: 2, time: t2 },
        { name: 'view', value: 3, time: t1 },
      ],
      q,
    );
    expect(rows).toEqual([
      { time: '2026-10-25T00:00:00+02:00', name: 'view', value: 3 },
      { time: '2026-10-26T00:00:00+01:00', name: 'click', value: 2 },
      { time: '2026-10-26T00:00:00+01:00', name: 'view', value: 1 },
    ]);
    expect(Object.keys(rows[0]!)).toEqual(['time', 'name', 'value']);
  });

  test('when fill_zeros is asked, then every group seen and every requested name has a row in every bucket', () => {
    const rows = toReportRows([{ name: 'view', value: 3, time: t1 }], {
      ...q,
      fillZeros: true,
      names: ['view', 'share'],
      metadataKeys: ['k'],
    });
    expect(rows.map((r) => [r.time!.slice(0, 10), r.name, r.value, r.metadata])).toEqual([
      ['2026-10-25', 'share', 0, { k: '' }],
      ['2026-10-25', 'view', 3, { k: '' }],
      ['2026-10-26', 'share', 0, { k: '' }],
      ['2026-10-26', 'view', 0, { k: '' }],
    ]);
  });

  test.each([
    ['asc', ['nothing', 'view'], [0, 12]],
    ['desc', ['click', 'view'], [16, 12]],
  ] as const)(
    'when fill_zeros, order_by value %s and a limit are asked, then a requested name without events ranks by its total of 0 in either order of the groups',
    (direction, names, values) => {
      const seen: GroupCount[] = [
        { name: 'view', value: 12, time: t1 },
        { name: 'click', value: 16, time: t1 },
      ];
      const query = {
        ...q,
        series: q.series!.slice(0, 1),
        fillZeros: true,
        names: ['click', 'view', 'nothing'],
        orderBy: { field: 'value', direction },
        limit: 2,
      } as ReportQuery;
      for (const groups of [seen, [...seen].reverse()])
        expect(toReportRows(groups, query).map((r) => [r.name, r.value])).toEqual([
          [names[0], values[0]],
          [names[1], values[1]],
        ]);
    },
  );

  test('when filling zeros would pass the cap, then it is refused before anything is filled', () => {
    expect(() =>
      toReportRows(
        [
          { name: 'a', value: 1, time: t1 },
          { name: 'b', value: 1, time: t1 },
        ],
        { ...q, fillZeros: true },
        3,
      ),
    ).toThrow(/more than 3 groups/);
  });

  test('when limit is given, then the top groups by their total over all times are kept, ranked by value, ties by name', () => {
    const groups: GroupCount[] = [
      { name: 'a', url: 'x', value: 1, time: t1 },
      { name: 'a', url: 'x', value: 5, time: t2 },
      { name: 'a', url: 'y', value: 4, time: t1 },
      { name: 'a', url: 'z', value: 2, time: t2 },
      { name: 'a', url: 'w', value: 4, time: t2 },
    ];
    const rows = toReportRows(groups, {
      ...q,
      groupBy: ['url'],
      limit: 2,
      orderBy: { field: 'value', direction: 'desc' },
    });
    expect(rows.map((r) => [r.time!.slice(0, 10), r.url, r.value])).toEqual([
      ['2026-10-25', 'x', 1],
      ['2026-10-26', 'x', 5],
      ['2026-10-26', 'w', 4],
    ]);
    const plain = toReportRows(
      groups.slice(1).map(({ time: _t, ...g }) => g),
      { ...base, groupBy: ['url'], limit: 3, orderBy: { field: 'name', direction: 'desc' } },
    );
    expect(plain.map((r) => r.url)).toEqual(['z', 'y', 'x']);
  });

  test.each([
    ['value', 'desc'],
    ['value', 'asc'],
    ['name', 'desc'],
    ['name', 'asc'],
  ] as const)(
    'when %s %s is asked with limits over many groups with tied totals, then the rows are the first rows of the whole ranking',
    (field, direction) => {
      // a long tail of equal counts: ties are broken by name, then url
      let seed = 7;
      const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
      const groups: GroupCount[] = Array.from({ length: 600 }, (_, i) => ({
        name: ['view', 'click', 'share'][next() % 3]!,
        url: `https://example.com/p/${next() % 400}?utm_source=x&i=${i}`,
        value: 1 + (next() % 6),
      }));
      const query = { ...base, groupBy: ['url' as const], orderBy: { field, direction } };
      const all = toReportRows(groups, query);
      for (const limit of [1, 2, 10, 77, 599, 600, 601]) {
        const top = toReportRows(groups, { ...query, limit });
        expect(top).toEqual(all.slice(0, limit));
      }
    },
  );

  test('when sums and averages are asked, then each row carries them in request order; an average without events is null', () => {
    const q = parseReportRequest(
      { owner_id: '1', metrics: 'count,engaged_ms_avg,value_sum,scroll_depth_avg' },
      { maxRangeDays: 31 },
    );
    const groups: GroupCount[] = [
      { name: 'engagement', value: 3, sums: [2, 9000, 1, 40, 0, 0] },
      { name: 'impression', value: 5 },
    ];
    const rows = toReportRows(groups, q);
    expect(rows).toEqual([
      { name: 'engagement', value: 3, engaged_ms_avg: 4500, value_sum: 0, scroll_depth_avg: 40 },
      { name: 'impression', value: 5, engaged_ms_avg: null, value_sum: 0, scroll_depth_avg: null },
    ]);
    expect(Object.keys(rows[0]!)).toEqual(['name', 'value', 'engaged_ms_avg', 'value_sum', 'scroll_depth_avg']);
  });

  test('when ranked by an average, then groups without events come last whatever the direction', () => {
    const q = parseReportRequest(
      { owner_id: '1', group_by: 'url', metrics: 'engaged_ms_avg', order_by: 'engaged_ms_avg', order: 'asc', limit: 2 },
      { maxRangeDays: 31 },
    );
    const groups: GroupCount[] = [
      { name: 'e', url: 'none', value: 9 },
      { name: 'e', url: 'slow', value: 1, sums: [1, 9000, 0, 0, 0, 0] },
      { name: 'e', url: 'fast', value: 1, sums: [2, 2000, 0, 0, 0, 0] },
    ];
    expect(toReportRows(groups, q).map((r) => r.url)).toEqual(['fast', 'slow']);
  });

  test('when a conversion rate is asked, then each from row carries to/from of its group and time (0 without conversions), other rows none', () => {
    const q = parseReportRequest(
      {
        owner_id: '1',
        group_by: 'url',
        metrics: 'count,conversion_rate',
        conversion: { from: 'impression', to: 'click' },
      },
      { maxRangeDays: 31 },
    );
    const groups: GroupCount[] = [
      { name: 'impression', url: 'a', value: 200 },
      { name: 'click', url: 'a', value: 5 },
      { name: 'impression', url: 'b', value: 10 },
      { name: 'click', url: 'c', value: 3 },
      { name: 'view', url: 'a', value: 7 },
    ];
    expect(toReportRows(groups, q)).toEqual([
      { name: 'click', url: 'a', value: 5 },
      { name: 'click', url: 'c', value: 3 },
      { name: 'impression', url: 'a', value: 200, conversion_rate: 0.025 },
      { name: 'impression', url: 'b', value: 10, conversion_rate: 0 },
      { name: 'view', url: 'a', value: 7 },
    ]);
  });

  test('when ranked by conversion rate with a limit, then the top groups keep all their names, rows of a group together', () => {
    const q = parseReportRequest(
      {
        owner_id: '1',
        group_by: 'url',
        metrics: 'count,conversion_rate',
        conversion: { from: 'impression', to: 'click' },
        order_by: 'conversion_rate',
        limit: 1,
      },
      { maxRangeDays: 31 },
    );
    const groups: GroupCount[] = [
      { name: 'impression', url: 'a', value: 200 },
      { name: 'click', url: 'a', value: 5 },
      { name: 'impression', url: 'b', value: 10 },
      { name: 'click', url: 'b', value: 2 },
    ];
    expect(toReportRows(groups, q)).toEqual([
      { name: 'click', url: 'b', value: 2 },
      { name: 'impression', url: 'b', value: 10, conversion_rate: 0.2 },
    ]);
  });
  test('when the sketch knows a percentile or share exactly, then `_exact` says true (one value above 128, a threshold above every value), else false', () => {
    const q = parseReportRequest(
      {
        owner_id: '1',
        group_by: 'url',
        metrics: 'engaged_ms_p90,engaged_ms_gte_3600000,engaged_ms_gte_45000,value_p50',
      },
      { maxRangeDays: 31 },
    );
    const one = [quantilesOf([45_000]), emptyQuantiles(), quantilesOf([1_999, 1_999])];
    const spread = [
      quantilesOf([1_000, 1_001, 1_002, 1_003, 90_000]),
      emptyQuantiles(),
      quantilesOf([500, 1_010, 2_000]),
    ];
    const rows = toReportRows(
      [
        { name: 'engagement', url: 'https://news.example/a?utm_source=x', value: 1, quantiles: one },
        { name: 'engagement', url: 'https://news.example/b', value: 5, quantiles: spread },
      ],
      q,
    );
    expect(rows[0]).toMatchObject({
      engaged_ms_p90: 45_000,
      engaged_ms_p90_exact: true,
      engaged_ms_gte_3600000: 0,
      engaged_ms_gte_3600000_exact: true,
      engaged_ms_gte_45000: 1,
      engaged_ms_gte_45000_exact: true,
      value_p50: 1_999,
      value_p50_exact: true,
    });
    expect(rows[1]).toMatchObject({
      engaged_ms_p90: 90_000,
      engaged_ms_p90_exact: true,
      engaged_ms_gte_3600000_exact: true,
      engaged_ms_gte_45000: 0.2,
      engaged_ms_gte_45000_exact: true,
      value_p50_exact: false,
    });
  });

  test('when a sum passes 2^53, then it is answered as its decimal digits and ranks exactly against numbers', () => {
    const q = parseReportRequest(
      { owner_id: '1', group_by: 'url', metrics: 'value_sum,value_avg', order_by: 'value_sum', order: 'asc' },
      { maxRangeDays: 31 },
    );
    const groups: GroupCount[] = [
      {
        name: 'purchase',
        url: 'https://shop.example/b',
        value: 9_009,
        sums: [0, 0, 0, 0, 9_009, 9_008_000_000_000_003n],
      },
      {
        name: 'purchase',
        url: 'https://shop.example/a',
        value: 9_009,
        sums: [0, 0, 0, 0, 9_009, 9_008_000_000_000_001n],
      },
      { name: 'purchase', url: 'https://shop.example/c', value: 1, sums: [0, 0, 0, 0, 1, Number.MAX_SAFE_INTEGER] },
    ];
    expect(toReportRows(groups, q).map((r) => [r.url, r.value_sum])).toEqual([
      ['https://shop.example/c', Number.MAX_SAFE_INTEGER],
      ['https://shop.example/a', '9008000000000001'],
      ['https://shop.example/b', '9008000000000003'],
    ]);
    expect(toReportRows(groups, q)[1]!.value_avg).toBeCloseTo(Number(9_008_000_000_000_001n) / 9_009, 3);
  });

  // A conversion rate stands on its `from` row: a top-N that keeps a group keeps its rows of every
  // name, whatever `order_by` ranks by, so no kept group loses the row that carries its rate.
  describe('when a conversion rate is asked with a limit', () => {
    const groups: GroupCount[] = [
      { name: 'impression', url: 'https://shop.example/a?utm_source=news', value: 200 },
      { name: 'click', url: 'https://shop.example/a?utm_source=news', value: 5 },
      { name: 'impression', url: 'https://shop.example/b#offer', value: 10 },
      { name: 'click', url: 'https://shop.example/b#offer', value: 2 },
      { name: 'click', url: 'https://xn--bcher-kva.example/c', value: 40 },
      { name: 'impression', url: 'https://SHOP.example/d', value: 1 },
    ];
    const ask = (extra: Record<string, unknown>) =>
      toReportRows(
        groups,
        parseReportRequest(
          {
            owner_id: '1',
            group_by: 'url',
            metrics: 'count,conversion_rate',
            conversion: { from: 'impression', to: 'click' },
            ...extra,
          },
          { maxRangeDays: 31 },
        ),
      );
    const rated = (rows: ReturnType<typeof ask>) => rows.filter((r) => r.conversion_rate !== undefined);

    test.each([
      [{ order_by: 'name', limit: 1 }],
      [{ order_by: 'name', order: 'desc', limit: 1 }],
      [{ order_by: 'value', limit: 1 }],
      [{ order_by: 'value', order: 'asc', limit: 1 }],
      [{ limit: 2 }],
      [{ order_by: 'conversion_rate', order: 'asc', limit: 1 }],
    ])('with %p, then every kept group with `from` events keeps the row that carries its rate', (extra) => {
      const rows = ask(extra);
      const kept = new Set(rows.map((r) => r.url));
      expect(kept.size).toBe(extra.limit);
      for (const url of kept) {
        const from = groups.find((g) => g.name === 'impression' && g.url === url);
        expect(rows.filter((r) => r.url === url).length).toBe(groups.filter((g) => g.url === url).length);
        if (from) expect(rated(rows).map((r) => r.url)).toContain(url);
      }
    });

    test('ranked by name, then groups take the place of their first row (the name, then the group fields) and keep every name', () => {
      expect(ask({ order_by: 'name', limit: 1 })).toEqual([
        { name: 'click', url: 'https://shop.example/a?utm_source=news', value: 5 },
        {
          name: 'impression',
          url: 'https://shop.example/a?utm_source=news',
          value: 200,
          conversion_rate: 0.025,
        },
      ]);
    });

    test('ranked by value, then a group takes the place of its largest row', () => {
      // the clicks of https://xn--bcher-kva.example/c (40) outrank b's impressions (10)
      expect(ask({ order_by: 'value', limit: 2 }).map((r) => [r.name, r.url])).toEqual([
        ['click', 'https://shop.example/a?utm_source=news'],
        ['impression', 'https://shop.example/a?utm_source=news'],
        ['click', 'https://xn--bcher-kva.example/c'],
      ]);
    });
  });
});
