import { ValidationError } from '@cm/platform';
import { parseReportRequest } from './parse-report-request';

const limits = { maxRangeDays: 31 };

function fieldsOf(body: unknown): string[] {
  try {
    parseReportRequest(body, limits);
  } catch (err) {
    if (err instanceof ValidationError) return (err.details ?? []).map((d) => d.field);
    throw err;
  }
  throw new Error('expected a ValidationError');
}

describe('parseReportRequest', () => {
  test('when only owner_id is given, then every filter is open and nothing is grouped', () => {
    expect(parseReportRequest({ owner_id: '42' }, limits)).toEqual({
      ownerId: '42',
      names: undefined,
      filters: {},
      deviceTypes: undefined,
      groupBy: [],
      metadataKeys: [],
      metrics: ['count'],
      aggregateMetrics: [{ aggregate: 'count', metric: { metric: 'count' } }],
      range: { from: undefined, to: undefined },
    });
  });

  test('when url filters are given, then each matches its canonical form and the form given (events from before canonical URLs), without duplicates', () => {
    const q = parseReportRequest(
      { owner_id: '42', url: ['https://A.example/guide/?fbclid=x', 'https://a.example/guide', 'not a url'] },
      limits,
    );
    expect(q.filters.url).toEqual(['https://a.example/guide', 'https://A.example/guide/?fbclid=x', 'not a url']);
  });

  test('when filters are strings, then they become lists of one; lists are kept without duplicates', () => {
    const q = parseReportRequest(
      {
        owner_id: '42',
        url: 'https://a.example/',
        content_id: ['c1', 'c2', 'c1'],
        name: 'click',
        device_type: ['mobile', 'tablet'],
      },
      limits,
    );
    expect(q.filters).toEqual({ url: ['https://a.example/'], content_id: ['c1', 'c2'] });
    expect(q.names).toEqual(['click']);
    expect(q.deviceTypes).toEqual(['mobile', 'tablet']);
  });

  test('when metadata and group_by are comma lists or arrays, then both give the same lists', () => {
    const a = parseReportRequest({ owner_id: '1', metadata: 'campaign, variant', group_by: 'url,content_id' }, limits);
    const b = parseReportRequest(
      { owner_id: '1', metadata: ['campaign', 'variant'], group_by: ['url', 'content_id'] },
      limits,
    );
    expect(a).toEqual(b);
    expect(a.metadataKeys).toEqual(['campaign', 'variant']);
    expect(a.groupBy).toEqual(['url', 'content_id']);
    expect(parseReportRequest({ owner_id: '1', metadata: '', group_by: '' }, limits)).toMatchObject({
      metadataKeys: [],
      groupBy: [],
    });
  });

  test('when metadata keys hold dots, a leading $ or %, then they are accepted (the store escapes them)', () => {
    expect(parseReportRequest({ owner_id: '1', metadata: ['a.b', '$x', '50%'] }, limits).metadataKeys).toEqual([
      'a.b',
      '$x',
      '50%',
    ]);
  });

  test('when dates are given, then gte is the first and lte the last millisecond they denote', () => {
    const q = parseReportRequest(
      { owner_id: '1', created__gte: '2026-11-01 00:00:00', created__lte: '2026-11-20 12:00:00' },
      limits,
    );
    expect(q.range.from?.toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(q.range.to?.toISOString()).toBe('2026-11-20T12:00:00.999Z');
  });

  test('when gte and lte name the same second, then the range is that second', () => {
    const q = parseReportRequest(
      { owner_id: '1', created__gte: '2026-11-20 12:00:00', created__lte: '2026-11-20 12:00:00' },
      limits,
    );
    expect(q.range.to!.getTime() - q.range.from!.getTime()).toBe(999);
  });

  test.each([
    ['owner_id missing', {}, 'owner_id'],
    ['owner_id a number', { owner_id: 42 }, 'owner_id'],
    ['owner_id not digits', { owner_id: '4a' }, 'owner_id'],
    ['owner_id an operator', { owner_id: { $gt: '' } }, 'owner_id'],
    ['url an operator', { owner_id: '1', url: { $ne: null } }, 'url'],
    ['url a number', { owner_id: '1', url: 5 }, 'url'],
    ['url list with a number', { owner_id: '1', url: ['a', 5] }, 'url.1'],
    ['empty url list', { owner_id: '1', url: [] }, 'url'],
    ['too many urls', { owner_id: '1', url: Array.from({ length: 101 }, (_, i) => `u${i}`) }, 'url'],
    ['content_id an object', { owner_id: '1', content_id: { $regex: '.*' } }, 'content_id'],
    ['empty name', { owner_id: '1', name: '' }, 'name'],
    ['name too long', { owner_id: '1', name: 'n'.repeat(129) }, 'name'],
    ['unknown device_type', { owner_id: '1', device_type: 'phone' }, 'device_type'],
    ['bad device_type in list', { owner_id: '1', device_type: ['mobile', 'tv'] }, 'device_type.1'],
    ['group_by unknown item', { owner_id: '1', group_by: 'name' }, 'group_by.0'],
    ['group_by duplicate', { owner_id: '1', group_by: 'url,url' }, 'group_by.1'],
    ['group_by a number', { owner_id: '1', group_by: 1 }, 'group_by'],
    ['metadata empty item', { owner_id: '1', metadata: 'a,,b' }, 'metadata.1'],
    ['metadata an object', { owner_id: '1', metadata: { a: 1 } }, 'metadata'],
    ['metadata key too long', { owner_id: '1', metadata: ['k'.repeat(65)] }, 'metadata.0'],
    ['metadata key too long once escaped', { owner_id: '1', metadata: ['.'.repeat(30)] }, 'metadata.0'],
    ['too many metadata keys', { owner_id: '1', metadata: Array.from({ length: 21 }, (_, i) => `k${i}`) }, 'metadata'],
    ['created__gte not a date', { owner_id: '1', created__gte: 'yesterday' }, 'created__gte'],
    ['created__lte impossible date', { owner_id: '1', created__lte: '2026-02-30 00:00:00' }, 'created__lte'],
    ['created__gte a number', { owner_id: '1', created__gte: 1700000000 }, 'created__gte'],
    [
      'gte after lte',
      { owner_id: '1', created__gte: '2026-11-20 12:00:01', created__lte: '2026-11-20 12:00:00' },
      'created__lte',
    ],
    [
      'range too long',
      { owner_id: '1', created__gte: '2026-01-01 00:00:00', created__lte: '2026-02-01 00:00:00' },
      'created__gte',
    ],
    ['unknown field', { owner_id: '1', since: '2026-01-01' }, 'since'],
    ['operator field', { owner_id: '1', $where: '1' }, '$where'],
    ['an unknown metric', { owner_id: '1', metrics: ['count', 'visits'] }, 'metrics.1'],
    ['a metric twice', { owner_id: '1', metrics: 'uniques,uniques' }, 'metrics.1'],
    ['no metric', { owner_id: '1', metrics: [] }, 'metrics'],
    ['a metric that is not a string', { owner_id: '1', metrics: [{ $gt: '' }] }, 'metrics.0'],
    ['order_by uniques without the metric', { owner_id: '1', order_by: 'uniques' }, 'order_by'],
    ['a measure that does not exist', { owner_id: '1', metrics: 'revenue_sum' }, 'metrics.0'],
    ['a percentile not offered', { owner_id: '1', metrics: 'engaged_ms_p42' }, 'metrics.0'],
    ['a fractional percentile', { owner_id: '1', metrics: 'engaged_ms_p99.9' }, 'metrics.0'],
    ['a threshold past the measure', { owner_id: '1', metrics: 'scroll_depth_gte_101' }, 'metrics.0'],
    ['a negative threshold', { owner_id: '1', metrics: 'engaged_ms_gte_-1' }, 'metrics.0'],
    ['a threshold with leading zeros', { owner_id: '1', metrics: 'engaged_ms_gte_0100' }, 'metrics.0'],
    ['a huge threshold', { owner_id: '1', metrics: `value_gte_${'9'.repeat(40)}` }, 'metrics.0'],
    ['too many metrics', { owner_id: '1', metrics: [...Array(21).keys()].map((i) => `value_gte_${i}`) }, 'metrics'],
    [
      'order_by a measure not asked',
      { owner_id: '1', metrics: 'engaged_ms_sum', order_by: 'engaged_ms_avg' },
      'order_by',
    ],
    ['conversion_rate without conversion', { owner_id: '1', metrics: 'conversion_rate' }, 'conversion'],
    ['conversion without the metric', { owner_id: '1', conversion: { from: 'a', to: 'b' } }, 'conversion'],
    [
      'conversion to the same name',
      { owner_id: '1', metrics: 'conversion_rate', conversion: { from: 'a', to: 'a' } },
      'conversion',
    ],
    [
      'conversion without to',
      { owner_id: '1', metrics: 'conversion_rate', conversion: { from: 'a' } },
      'conversion.to',
    ],
    [
      'conversion names an operator',
      { owner_id: '1', metrics: 'conversion_rate', conversion: { from: { $gt: '' }, to: 'b' } },
      'conversion.from',
    ],
    [
      'conversion with another field',
      { owner_id: '1', metrics: 'conversion_rate', conversion: { from: 'a', to: 'b', x: 1 } },
      'conversion.x',
    ],
    [
      'name leaving out a conversion name',
      { owner_id: '1', name: ['a'], metrics: 'conversion_rate', conversion: { from: 'a', to: 'b' } },
      'name',
    ],
    ['__proto__ field', JSON.parse('{"owner_id":"1","__proto__":{"x":1}}'), '__proto__'],
  ])('when %s (body %j), then 400 names %s', (_what, body, field) => {
    expect(fieldsOf(body)).toContain(field);
  });

  test('when the body is not an object, then the body is named', () => {
    expect(fieldsOf([])).toEqual(['body']);
    expect(fieldsOf('x')).toEqual(['body']);
  });

  test('when the range touches exactly the maximum days, then it is allowed', () => {
    expect(() =>
      parseReportRequest(
        { owner_id: '1', created__gte: '2026-01-01 00:00:00', created__lte: '2026-01-31 23:59:59' },
        limits,
      ),
    ).not.toThrow();
  });

  test('when metrics are a comma list or an array, then both ask for the same; order_by uniques ranks descending by default', () => {
    const listed = parseReportRequest({ owner_id: '1', metrics: ['uniques', 'count'] }, limits);
    const comma = parseReportRequest({ owner_id: '1', metrics: ' uniques , count' }, limits);
    expect(listed.metrics).toEqual(['uniques', 'count']);
    expect(comma.metrics).toEqual(listed.metrics);
    const ranked = parseReportRequest({ owner_id: '1', metrics: 'uniques', order_by: 'uniques', limit: 5 }, limits);
    expect(ranked.orderBy).toEqual({ field: 'uniques', direction: 'desc' });
  });

  test('when measure metrics are asked, then each is parsed in request order, and order_by takes one of them', () => {
    const q = parseReportRequest(
      {
        owner_id: '1',
        metrics: 'count,engaged_ms_p90,value_sum,scroll_depth_avg,engaged_ms_gte_10000',
        order_by: 'engaged_ms_p90',
      },
      limits,
    );
    expect(q.aggregateMetrics).toEqual([
      { aggregate: 'count', metric: { metric: 'count' } },
      { aggregate: 'quantiles', metric: { metric: 'engaged_ms_p90', measure: 'engaged_ms', stat: 'quantile', q: 0.9 } },
      { aggregate: 'sums', metric: { metric: 'value_sum', measure: 'value', stat: 'sum' } },
      { aggregate: 'sums', metric: { metric: 'scroll_depth_avg', measure: 'scroll_depth', stat: 'avg' } },
      {
        aggregate: 'quantiles',
        metric: { metric: 'engaged_ms_gte_10000', measure: 'engaged_ms', stat: 'share', threshold: 10000 },
      },
    ]);
    expect(q.orderBy).toEqual({ field: 'engaged_ms_p90', direction: 'desc' });
  });

  test('when a conversion is asked with both names reported, then it is kept; order_by count is order_by value', () => {
    const q = parseReportRequest(
      {
        owner_id: '1',
        name: ['impression', 'click'],
        metrics: ['count', 'conversion_rate'],
        conversion: { from: 'impression', to: 'click' },
        order_by: 'count',
      },
      limits,
    );
    expect(q.conversion).toEqual({ from: 'impression', to: 'click' });
    expect(q.orderBy).toEqual({ field: 'value', direction: 'desc' });
  });
});
