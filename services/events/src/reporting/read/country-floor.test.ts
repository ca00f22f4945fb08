import type { Latest } from '../../metrics/latest-aggregate';
import { countOf } from '../../metrics/uniques-aggregate';
import { DISTINCT_SKETCH, sketchOfHashes } from '../../sketches/distinct-sketch';
import { encodeMetadataKey } from '../../storage/metadata-key';
import { parseReportRequest } from '../request/parse-report-request';
import { applyCountryFloor } from './country-floor';
import { readPlanOf } from './read-plan';
import { reportGroup, withStates, type ReportGroup } from './report-group';
import { toReportRows } from './report-rows';
import type { ReportRow } from './report-row';

const DAY = 86_400_000;
const T0 = Date.parse('2026-11-02T00:00:00Z');

/**
 * A merged group as the count source hands it over: `visitors` distinct visitor hashes starting
 * at `first` (so groups can share visitors), `value` events, optionally a series time and the
 * latest event's metadata. Grouped fields in `dims` in group_by order, stored ("" is unknown).
 */
function group(
  name: string,
  dims: string[],
  value: number,
  visitors: number,
  opts: { time?: number; first?: number; campaign?: string } = {},
): ReportGroup {
  const first = opts.first ?? 0;
  const states: Record<string, unknown> = {
    count: value,
    uniques: sketchOfHashes(Array.from({ length: visitors }, (_, i) => first + i)),
  };
  if (opts.campaign !== undefined)
    states.latest = [
      opts.time ?? T0,
      `id-${name}-${dims.join('-')}`,
      { [encodeMetadataKey('campaign')]: opts.campaign },
    ] as Latest;
  return reportGroup(name, dims, states, opts.time);
}

/** The report's rows under a floor, as the service shapes them after the merge. */
function rows(body: Record<string, unknown>, groups: ReportGroup[], floor = 10): ReportRow[] {
  const query = parseReportRequest({ owner_id: '1', ...body }, { maxRangeDays: 400 });
  const plan = readPlanOf(query, { countryFloor: floor });
  // the count source merges every asked aggregate: the latest event only when metadata is asked
  const states = (g: ReportGroup) =>
    Object.fromEntries(Object.entries(g.states).filter(([name]) => plan.aggregates.includes(name as never)));
  return toReportRows(
    groups.map((g) => withStates(g, states(g))),
    plan,
  );
}

const total = (list: ReportRow[]) => list.reduce((sum, r) => sum + (r.value ?? 0), 0);

describe('the country floor when a report groups by country', () => {
  const audience = [
    group('impression', ['US'], 40, 12),
    group('impression', ['FR'], 11, 10), // exactly the floor: shown
    group('impression', ['DE'], 9, 3, { first: 100 }),
    group('impression', ['JP'], 4, 2, { first: 102 }), // shares a visitor with DE
    group('impression', ['XK'], 1, 1, { first: 500 }),
    group('impression', [''], 5, 2, { first: 600 }), // unknown names no country: never folded
  ];

  test('when countries have fewer visitors than the floor, then they fold into one below_floor row and totals stay true', () => {
    const answer = rows({ group_by: 'country' }, audience);
    // rows sort by the stored values: unknown ("") first
    expect(answer).toEqual([
      { name: 'impression', country: 'unknown', value: 5 },
      { name: 'impression', country: 'FR', value: 11 },
      { name: 'impression', country: 'US', value: 40 },
      { name: 'impression', country: 'below_floor', value: 14 },
    ]);
    expect(total(answer)).toBe(total(rows({ group_by: 'country' }, audience, 0)));
    // the floor read the visitors without adding them to the answer
    expect(answer.every((r) => !('uniques' in r))).toBe(true);
  });

  test('when uniques are asked, then the below_floor row counts the folded visitors once (a union, not a sum), even under the floor itself', () => {
    expect(rows({ group_by: 'country', metrics: 'count,uniques' }, audience)).toEqual([
      { name: 'impression', country: 'unknown', value: 5, uniques: 2, uniques_exact: true },
      { name: 'impression', country: 'FR', value: 11, uniques: 10, uniques_exact: true },
      { name: 'impression', country: 'US', value: 40, uniques: 12, uniques_exact: true },
      // DE 3 + JP 2 (one shared) + XK 1 = 5 visitors: under the floor, shown because it names no country
      { name: 'impression', country: 'below_floor', value: 14, uniques: 5, uniques_exact: true },
    ]);
  });

  test('when grouped by url and country, then each url and name has its own below_floor row', () => {
    const groups = [
      group('click', ['https://news.example/a', 'FR'], 30, 20),
      group('click', ['https://news.example/a', 'BE'], 2, 2),
      group('click', ['https://news.example/b', 'FR'], 3, 3),
      group('click', ['https://news.example/b', 'BE'], 2, 1),
      group('view', ['https://news.example/b', 'BE'], 2, 1),
    ];
    expect(rows({ group_by: 'url,country' }, groups)).toEqual([
      { name: 'click', url: 'https://news.example/a', country: 'FR', value: 30 },
      { name: 'click', url: 'https://news.example/a', country: 'below_floor', value: 2 },
      { name: 'click', url: 'https://news.example/b', country: 'below_floor', value: 5 },
      { name: 'view', url: 'https://news.example/b', country: 'below_floor', value: 2 },
    ]);
  });

  test('when countries fold, then the groups the read handed over keep their own states (the fold merges into states of its own)', () => {
    const plan = readPlanOf(parseReportRequest({ owner_id: '1', group_by: 'country' }, { maxRangeDays: 400 }), {
      countryFloor: 10,
    });
    const merged = [
      group('impression', ['DE'], 9, 3, { first: 100 }),
      group('impression', ['JP'], 4, 2, { first: 102 }),
    ];
    const before = merged.map((g) => ({ count: g.states.count, visitors: countOf(g.states.uniques!).value }));
    const floored = applyCountryFloor(merged, plan);
    expect(floored.map((g) => [g.dims, g.states.count, countOf(g.states.uniques!).value])).toEqual([
      [['below_floor'], 13, 4],
    ]);
    expect(merged.map((g) => ({ count: g.states.count, visitors: countOf(g.states.uniques!).value }))).toEqual(before);
  });

  test('when the floor is 0, then every country shows as it is', () => {
    expect(rows({ group_by: 'country' }, audience, 0).map((r) => r.country)).toEqual([
      'unknown',
      'DE',
      'FR',
      'JP',
      'US',
      'XK',
    ]);
  });

  test('when a row has events but no visitors (stored before visitors were recorded), then it is under the floor', () => {
    expect(rows({ group_by: 'country' }, [group('impression', ['FR'], 500, 0)])).toEqual([
      { name: 'impression', country: 'below_floor', value: 500 },
    ]);
  });

  test('when a row has more visitors than the exact sketch holds, then the floor compares the estimate', () => {
    const many = group('impression', ['US'], 9000, DISTINCT_SKETCH.exactLimit + 900);
    const estimate = countOf(many.states.uniques!);
    expect(estimate.exact).toBe(false);
    expect(rows({ group_by: 'country' }, [many], estimate.value)[0]!.country).toBe('US');
    expect(rows({ group_by: 'country' }, [many], estimate.value + 1)[0]!.country).toBe('below_floor');
  });

  test('when top-N is asked, then groups are ranked after folding: below_floor competes as one group and a folded country never shows', () => {
    const body = { group_by: 'country', limit: 2 };
    expect(rows(body, audience)).toEqual([
      { name: 'impression', country: 'US', value: 40 },
      { name: 'impression', country: 'below_floor', value: 14 },
    ]);
    expect(rows({ ...body, order: 'asc' }, audience)).toEqual([
      { name: 'impression', country: 'unknown', value: 5 },
      { name: 'impression', country: 'FR', value: 11 },
    ]);
    expect(rows({ ...body, order_by: 'name', limit: 10 }, audience).map((r) => r.country)).toEqual([
      'unknown',
      'FR',
      'US',
      'below_floor',
    ]);
  });

  describe('in a series', () => {
    const series = {
      group_by: 'country',
      interval: 'day',
      created__gte: '2026-11-02',
      created__lte: '2026-11-04',
    };
    const days = [
      group('impression', ['US'], 30, 12, { time: T0 }),
      group('impression', ['FR'], 20, 11, { time: T0 }),
      group('impression', ['FR'], 3, 3, { time: T0 + DAY }), // small on the second day only
      group('impression', ['US'], 25, 15, { time: T0 + DAY }),
      group('impression', ['DE'], 2, 2, { time: T0 + DAY, first: 50 }),
      group('impression', ['US'], 1, 1, { time: T0 + 2 * DAY }),
    ];

    test('when a country is small in one bucket only, then it folds in that bucket and shows in the others', () => {
      expect(rows(series, days)).toEqual([
        { time: '2026-11-02T00:00:00+00:00', name: 'impression', country: 'FR', value: 20 },
        { time: '2026-11-02T00:00:00+00:00', name: 'impression', country: 'US', value: 30 },
        { time: '2026-11-03T00:00:00+00:00', name: 'impression', country: 'US', value: 25 },
        { time: '2026-11-03T00:00:00+00:00', name: 'impression', country: 'below_floor', value: 5 },
        { time: '2026-11-04T00:00:00+00:00', name: 'impression', country: 'below_floor', value: 1 },
      ]);
    });

    test('when zeros are filled, then a country missing from a bucket is withheld (folded or absent alike), below_floor is 0', () => {
      const filled = rows({ ...series, fill_zeros: true, metrics: 'count,uniques' }, days);
      const withheld = { value: null, uniques: null, uniques_exact: null, below_floor: true };
      expect(filled).toEqual([
        {
          time: '2026-11-02T00:00:00+00:00',
          name: 'impression',
          country: 'FR',
          value: 20,
          uniques: 11,
          uniques_exact: true,
        },
        {
          time: '2026-11-02T00:00:00+00:00',
          name: 'impression',
          country: 'US',
          value: 30,
          uniques: 12,
          uniques_exact: true,
        },
        {
          time: '2026-11-02T00:00:00+00:00',
          name: 'impression',
          country: 'below_floor',
          value: 0,
          uniques: 0,
          uniques_exact: true,
        },
        { time: '2026-11-03T00:00:00+00:00', name: 'impression', country: 'FR', ...withheld },
        {
          time: '2026-11-03T00:00:00+00:00',
          name: 'impression',
          country: 'US',
          value: 25,
          uniques: 15,
          uniques_exact: true,
        },
        {
          time: '2026-11-03T00:00:00+00:00',
          name: 'impression',
          country: 'below_floor',
          value: 5,
          uniques: 5,
          uniques_exact: true,
        },
        { time: '2026-11-04T00:00:00+00:00', name: 'impression', country: 'FR', ...withheld },
        { time: '2026-11-04T00:00:00+00:00', name: 'impression', country: 'US', ...withheld },
        {
          time: '2026-11-04T00:00:00+00:00',
          name: 'impression',
          country: 'below_floor',
          value: 1,
          uniques: 1,
          uniques_exact: true,
        },
      ]);
    });

    test('when ranked over a series, then a group is ranked by its shown rows only', () => {
      // FR shows 20 (its folded 3 are below_floor's), below_floor 6: FR first, whatever FR's hidden rows held
      expect(rows({ ...series, limit: 2 }, days).map((r) => [r.time!.slice(0, 10), r.country, r.value])).toEqual([
        ['2026-11-02', 'US', 30],
        ['2026-11-02', 'FR', 20],
        ['2026-11-03', 'US', 25],
      ]);
    });
  });

  describe('with a conversion rate', () => {
    const body = {
      group_by: 'country',
      metrics: 'count,conversion_rate',
      conversion: { from: 'impression', to: 'click' },
    };
    const funnel = [
      group('impression', ['US'], 400, 300),
      group('click', ['US'], 40, 30),
      // many impressions, too few clickers: both fold, or the rate would give the click count away
      group('impression', ['FR'], 200, 150),
      group('click', ['FR'], 4, 4, { first: 900 }),
      group('impression', ['BE'], 20, 8),
      group('view', ['BE'], 50, 40), // neither from nor to: judged alone
      group('impression', ['NL'], 100, 60), // no click at all: rate 0, nothing small to hide
    ];

    test('when one side of a country is small, then both fold and rates are taken after folding (below_floor relates the same countries)', () => {
      const answer = rows(body, funnel);
      expect(answer).toEqual([
        { name: 'click', country: 'US', value: 40 },
        { name: 'click', country: 'below_floor', value: 4 },
        { name: 'impression', country: 'NL', value: 100, conversion_rate: 0 },
        { name: 'impression', country: 'US', value: 400, conversion_rate: 0.1 },
        { name: 'impression', country: 'below_floor', value: 220, conversion_rate: 4 / 220 },
        { name: 'view', country: 'BE', value: 50 },
      ]);
      expect(total(answer)).toBe(total(rows(body, funnel, 0)));
    });

    test('when ranked by the rate with a limit, then below_floor competes with its pooled rate', () => {
      const top = rows({ ...body, order_by: 'conversion_rate', limit: 2 }, funnel);
      expect(top.map((r) => [r.name, r.country])).toEqual([
        ['click', 'US'],
        ['impression', 'US'],
        ['click', 'below_floor'],
        ['impression', 'below_floor'],
      ]);
    });
  });
});

describe('the country floor when a report filters by country without grouping by it', () => {
  const pages = [
    group('impression', ['https://news.example/a'], 90, 40, { campaign: 'spring' }),
    group('impression', ['https://news.example/b'], 7, 4, { campaign: 'winter' }),
    group('click', ['https://news.example/a'], 3, 3, { campaign: 'spring' }),
  ];

  test('when a row has fewer visitors than the floor, then its numbers are withheld (null) and it says below_floor', () => {
    const answer = rows({ country: ['fr'], group_by: 'url', metadata: 'campaign', metrics: 'count,value_sum' }, pages);
    expect(answer).toEqual([
      {
        name: 'click',
        url: 'https://news.example/a',
        value: null,
        value_sum: null,
        metadata: { campaign: null },
        below_floor: true,
      },
      { name: 'impression', url: 'https://news.example/a', value: 90, value_sum: 0, metadata: { campaign: 'spring' } },
      {
        name: 'impression',
        url: 'https://news.example/b',
        value: null,
        value_sum: null,
        metadata: { campaign: null },
        below_floor: true,
      },
    ]);
  });

  test('when ranked, then withheld rows come last in either direction and their hidden numbers decide nothing', () => {
    for (const order of ['asc', 'desc'])
      expect(rows({ country: 'FR', group_by: 'url', limit: 3, order }, pages).map((r) => r.value)).toEqual([
        90,
        null,
        null,
      ]);
    expect(rows({ country: 'FR', group_by: 'url', limit: 1, order: 'asc' }, pages)).toEqual([
      { name: 'impression', url: 'https://news.example/a', value: 90 },
    ]);
  });

  test('when the to side of a rate is small, then the from row is withheld with it (its rate would give the count away)', () => {
    const answer = rows(
      {
        country: 'FR',
        group_by: 'url',
        metrics: 'count,conversion_rate',
        conversion: { from: 'impression', to: 'click' },
      },
      pages,
    );
    expect(answer).toEqual([
      { name: 'click', url: 'https://news.example/a', value: null, below_floor: true },
      { name: 'impression', url: 'https://news.example/a', value: null, conversion_rate: null, below_floor: true },
      { name: 'impression', url: 'https://news.example/b', value: null, conversion_rate: null, below_floor: true },
    ]);
  });

  test('when the filter names only unknown, then no country can be told and nothing is withheld', () => {
    expect(rows({ country: 'unknown', group_by: 'url' }, pages).map((r) => r.value)).toEqual([3, 90, 7]);
  });

  test('when grouped by country too, then a below_floor row under the floor is withheld (the filter would name its countries)', () => {
    const groups = [
      group('impression', ['FR'], 90, 40),
      group('impression', ['BE'], 5, 3),
      group('impression', [''], 2, 1),
    ];
    expect(rows({ country: ['FR', 'BE', 'unknown'], group_by: 'country' }, groups)).toEqual([
      { name: 'impression', country: 'unknown', value: 2 },
      { name: 'impression', country: 'FR', value: 90 },
      { name: 'impression', country: 'below_floor', value: null, below_floor: true },
    ]);
  });
});

describe('the read plan under the country floor', () => {
  const plan = (body: Record<string, unknown>, floor = 10) =>
    readPlanOf(parseReportRequest({ owner_id: '1', ...body }, { maxRangeDays: 400 }), { countryFloor: floor });

  test('when a report groups or filters by a country, then it reads the visitors (uniques) without answering them', () => {
    for (const body of [{ group_by: 'country' }, { country: 'FR' }, { country: ['unknown', 'JP'], group_by: 'url' }]) {
      const p = plan(body);
      expect(p.countryFloor).toBe(10);
      expect(p.aggregates).toContain('uniques');
      expect(p.query.aggregateMetrics.map((m) => m.aggregate)).toEqual(['count']);
      expect(p.family?.id ?? 'raw').toBe(body.group_by === 'url' ? 'raw' : 'g');
    }
  });

  test('when a report names no country, or the floor is off, then the plan is as without the floor', () => {
    for (const [body, floor] of [
      [{ group_by: 'url' }, 10],
      [{ country: 'unknown' }, 10],
      [{ group_by: 'country' }, 0],
    ] as const) {
      const p = plan(body, floor);
      expect(p.countryFloor).toBe(0);
      expect(p.aggregates).not.toContain('uniques');
    }
  });
});
