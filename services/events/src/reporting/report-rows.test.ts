import type { GroupCount } from './count-source';
import type { ReportQuery } from './report-query';
import { toReportRows } from './report-rows';

const base: ReportQuery = { ownerId: '1', groupBy: [], metadataKeys: [], range: {} };

describe('toReportRows', () => {
  test('when nothing is grouped, then rows are {name, value} sorted by name', () => {
    const groups: GroupCount[] = [{ name: 'view', value: 2 }, { name: 'click', value: 1 }, { name: 'Zed', value: 4 }];
    expect(toReportRows(groups, base)).toEqual([{ name: 'Zed', value: 4 }, { name: 'click', value: 1 }, { name: 'view', value: 2 }]);
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

  test('when metadata was requested, then each row has it under the caller keys, "" when unknown', () => {
    const groups: GroupCount[] = [{ name: 'click', value: 1, latest: { created: new Date(0), id: 'x', metadata: ['v', ''] } }, { name: 'view', value: 1 }];
    expect(toReportRows(groups, { ...base, metadataKeys: ['a.b', '__proto__'] })).toEqual([
      { name: 'click', value: 1, metadata: { 'a.b': 'v', ['__proto__']: '' } },
      { name: 'view', value: 1, metadata: { 'a.b': '', ['__proto__']: '' } },
    ]);
  });
});
