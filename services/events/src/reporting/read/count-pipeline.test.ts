import { buildCountPipeline, readCountRow } from './count-pipeline';
import type { ReportQuery } from '../request/report-query';

const base: ReportQuery = {
  ownerId: '42',
  groupBy: [],
  metadataKeys: [],
  metrics: ['count'],
  measureMetrics: [],
  range: {},
};

describe('buildCountPipeline', () => {
  test('when only the owner is given, then it matches the owner non-bot events and counts by name', () => {
    expect(buildCountPipeline(base)).toEqual([
      { $match: { owner_id: '42', bot: { $ne: true } } },
      { $group: { _id: { name: '$name' }, value: { $sum: 1 } } },
    ]);
  });

  test('when filters hold one value, then they are equalities; several values are $in', () => {
    const [match] = buildCountPipeline({
      ...base,
      names: ['click'],
      urls: ['u1', 'u2'],
      contentIds: ['c1'],
      deviceTypes: ['mobile', 'tablet'],
    });
    expect(match).toEqual({
      $match: {
        owner_id: '42',
        bot: { $ne: true },
        name: 'click',
        url: { $in: ['u1', 'u2'] },
        content_id: 'c1',
        device_type: { $in: ['mobile', 'tablet'] },
      },
    });
  });

  test('when a bucket is cut by the range, then its bounds are in the match; otherwise there is no created condition', () => {
    const gte = new Date('2026-11-20T12:00:00Z');
    const lte = new Date('2026-11-20T13:00:00.999Z');
    expect(buildCountPipeline(base, { gte, lte })[0]).toEqual({
      $match: { owner_id: '42', bot: { $ne: true }, created: { $gte: gte, $lte: lte } },
    });
    expect(buildCountPipeline(base, { lte })[0]).toEqual({
      $match: { owner_id: '42', bot: { $ne: true }, created: { $lte: lte } },
    });
    expect(buildCountPipeline(base, {})[0]).toEqual({ $match: { owner_id: '42', bot: { $ne: true } } });
  });

  test('when grouping by content_id and url, then both join name in the group key, in the requested order', () => {
    const [, group] = buildCountPipeline({ ...base, groupBy: ['url', 'content_id'] });
    expect(group).toEqual({
      $group: { _id: { name: '$name', url: '$url', content_id: '$content_id' }, value: { $sum: 1 } },
    });
  });

  test('when metadata keys are requested, then $max keeps created, id and the escaped keys under positional names', () => {
    const [, group] = buildCountPipeline({ ...base, metadataKeys: ['campaign', 'a.b', '$x'] });
    expect(group).toEqual({
      $group: {
        _id: { name: '$name' },
        value: { $sum: 1 },
        latest: {
          $max: {
            c: '$created',
            i: '$_id',
            m: {
              k0: { $ifNull: ['$metadata.campaign', ''] },
              k1: { $ifNull: ['$metadata.a%2Eb', ''] },
              k2: { $ifNull: ['$metadata.%24x', ''] },
            },
          },
        },
      },
    });
  });
});

describe('readCountRow', () => {
  test('when a grouped row with metadata comes back, then it becomes a GroupCount in key order', () => {
    const created = new Date('2026-11-20T12:00:00Z');
    const query: ReportQuery = { ...base, groupBy: ['content_id', 'url'], metadataKeys: ['a', 'b'] };
    const row = {
      _id: { name: 'click', content_id: 'c1', url: 'u1' },
      value: 3,
      latest: { c: created, i: 'id-3', m: { k0: 'x', k1: '' } },
    };
    expect(readCountRow(row, query)).toEqual({
      name: 'click',
      content_id: 'c1',
      url: 'u1',
      value: 3,
      latest: { created, id: 'id-3', metadata: ['x', ''] },
    });
  });

  test('when a group field or metadata value is missing in the row, then it reads as ""', () => {
    const query: ReportQuery = { ...base, groupBy: ['url'], metadataKeys: ['a'] };
    const row = { _id: { name: 'click' }, value: 1, latest: { c: new Date(0), i: 'id', m: {} } };
    expect(readCountRow(row, query)).toMatchObject({ url: '', latest: { metadata: [''] } });
  });
});
