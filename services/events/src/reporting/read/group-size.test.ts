import { GroupAccumulator, GroupsTooLargeError, TooManyGroupsError } from './group-accumulator';
import { GROUP_OVERHEAD_BYTES, LATEST_OVERHEAD_BYTES, groupBytes } from './group-size';

const url = (i: number, length: number) => `https://example.com/${i}/`.padEnd(length, 'x');
const latest = (iso: string, ...metadata: string[]) => ({
  created: new Date(iso),
  id: '019a4d6e-1234-7abc-8def-0123456789ab',
  metadata,
});

describe('the group size estimate', () => {
  test('when a group has a long url, then its key and its field both count', () => {
    expect(groupBytes(2060, 'view', undefined, url(1, 2048))).toBe(GROUP_OVERHEAD_BYTES + 2060 + 4 + 2048);
  });

  test('when metadata was asked for, then the latest event and each value count too', () => {
    const bytes = groupBytes(10, 'view', '', '', latest('2026-11-19T12:00:00Z', 'abc', 'de'));
    expect(bytes).toBe(GROUP_OVERHEAD_BYTES + 10 + 4 + LATEST_OVERHEAD_BYTES + 36 + 24 + 3 + 24 + 2);
  });
});

describe('GroupAccumulator byte bound', () => {
  test('when groups are added, then the held bytes grow by each new group only, not by repeats', () => {
    const acc = new GroupAccumulator();
    acc.addParts(undefined, 'view', undefined, url(1, 100), 1);
    const one = acc.bytes;
    acc.addParts(undefined, 'view', undefined, url(1, 100), 5);
    expect(acc.bytes).toBe(one);
    acc.addParts(undefined, 'view', undefined, url(2, 100), 1);
    expect(acc.bytes).toBe(2 * one);
  });

  test('when distinct 2 KB urls exceed the byte bound, then the merge stops with a 400 naming group_by, long before the group cap', () => {
    const acc = new GroupAccumulator(200_000, true, 1024 * 1024);
    let added = 0;
    const fill = () => {
      for (;;) acc.addParts(undefined, 'view', undefined, url(added++, 2048), 1);
    };
    expect(fill).toThrow(GroupsTooLargeError);
    // about 4.3 KB estimated per group: some 240 groups fit in 1 MiB
    expect(added).toBeGreaterThan(200);
    expect(added).toBeLessThan(300);
    expect(acc.bytes).toBeLessThanOrEqual(1024 * 1024);
    const err = new GroupsTooLargeError(1024 * 1024);
    expect(err.status).toBe(400);
    expect(err.details).toEqual([
      { field: 'group_by', message: expect.stringContaining('more than 1 MiB; narrow the report with a filter') },
    ]);
  });

  test('when the group cap comes first, then it is still the group cap that answers', () => {
    const acc = new GroupAccumulator(3, true, 1024 * 1024);
    expect(() => {
      for (let i = 0; ; i++) acc.addParts(undefined, 'view', undefined, url(i, 30), 1);
    }).toThrow(TooManyGroupsError);
  });

  test('when a newer event with longer metadata replaces the latest, then the difference is held', () => {
    const acc = new GroupAccumulator();
    acc.addParts(undefined, 'view', undefined, 'u', 1, { latest: latest('2026-11-19T12:00:00Z', 'a') });
    const before = acc.bytes;
    acc.addParts(undefined, 'view', undefined, 'u', 1, { latest: latest('2026-11-19T13:00:00Z', 'a'.repeat(501)) });
    expect(acc.bytes).toBe(before + 500);
    acc.addParts(undefined, 'view', undefined, 'u', 1, { latest: latest('2026-11-19T11:00:00Z', 'a'.repeat(9999)) });
    expect(acc.bytes).toBe(before + 500);
  });
});
