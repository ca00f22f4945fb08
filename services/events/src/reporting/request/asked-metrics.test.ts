import { ValidationError } from '@cm/platform';
import { askedMetrics } from './asked-metrics';
import type { ReportBody } from './report-schema';

const body = (over: Partial<ReportBody>): ReportBody => ({ owner_id: '42', ...over });

describe('askedMetrics', () => {
  test.each([
    ['nothing asked', {}, ['count'], undefined, undefined],
    ['only a limit', { limit: 10 }, ['count'], 'value', undefined],
    ['only an order', { order: 'asc' as const }, ['count'], 'value', undefined],
    ['order_by count', { order_by: 'count' }, ['count'], 'value', undefined],
    ['order_by name', { order_by: 'name' }, ['count'], 'name', undefined],
    ['order_by a requested metric', { metrics: ['uniques'], order_by: 'uniques' }, ['uniques'], 'uniques', undefined],
    [
      'a conversion rate',
      { metrics: ['conversion_rate'], conversion: { from: 'impression', to: 'click' }, name: ['impression', 'click'] },
      ['conversion_rate'],
      undefined,
      { from: 'impression', to: 'click' },
    ],
  ])(
    'when %s, then the metrics, order field and conversion are as asked',
    (_, over, metrics, orderField, conversion) => {
      const asked = askedMetrics(body(over));
      expect(asked.metrics).toEqual(metrics);
      expect(asked.orderField).toBe(orderField);
      expect(asked.conversion).toEqual(conversion);
    },
  );

  test('when uniques and a measure are asked, then each is parsed by its aggregate and conversion_rate by none', () => {
    const asked = askedMetrics(
      body({ metrics: ['uniques', 'engaged_ms_p90', 'conversion_rate'], conversion: { from: 'a', to: 'b' } }),
    );
    expect(asked.aggregateMetrics.map((m) => m.aggregate)).toEqual(['uniques', 'quantiles']);
  });

  test.each([
    ['order_by a metric not asked', { order_by: 'uniques' }, 'order_by'],
    ['conversion_rate without conversion', { metrics: ['conversion_rate'] }, 'conversion'],
    ['conversion without conversion_rate', { conversion: { from: 'a', to: 'b' } }, 'conversion'],
    [
      'conversion of one name to itself',
      { metrics: ['conversion_rate'], conversion: { from: 'a', to: 'a' } },
      'conversion',
    ],
    [
      'names that leave out a conversion name',
      { metrics: ['conversion_rate'], conversion: { from: 'a', to: 'b' }, name: ['a', 'c'] },
      'name',
    ],
  ])('when %s, then it is a 400 naming %s', (_, over, field) => {
    let err: unknown;
    try {
      askedMetrics(body(over));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).details?.[0]?.field).toBe(field);
  });
});
