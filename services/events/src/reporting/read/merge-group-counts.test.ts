import type { GroupCount } from './count-source';
import { GroupAccumulator, isLater } from './group-accumulator';

/** Partial groups of several buckets (or sources) through the accumulator the reports merge with. */
function mergeGroupCounts(partials: readonly GroupCount[][]): GroupCount[] {
  const acc = new GroupAccumulator();
  for (const groups of partials) for (const group of groups) acc.add(group);
  return acc.groups();
}

const latest = (iso: string, id: string, ...metadata: string[]) => ({ created: new Date(iso), id, metadata });

describe('mergeGroupCounts', () => {
  test('when buckets share a group, then counts add up and other groups stay apart', () => {
    const day1: GroupCount[] = [
      { name: 'click', url: 'u1', value: 2 },
      { name: 'view', url: 'u1', value: 5 },
    ];
    const day2: GroupCount[] = [
      { name: 'click', url: 'u1', value: 3 },
      { name: 'click', url: 'u2', value: 1 },
    ];
    expect(mergeGroupCounts([day1, day2])).toEqual([
      { name: 'click', url: 'u1', value: 5 },
      { name: 'view', url: 'u1', value: 5 },
      { name: 'click', url: 'u2', value: 1 },
    ]);
  });

  test('when groups differ only in which field holds a value, then they are not merged', () => {
    const merged = mergeGroupCounts([
      [{ name: 'a', content_id: 'x', url: '', value: 1 }],
      [{ name: 'a', content_id: '', url: 'x', value: 1 }],
    ]);
    expect(merged).toHaveLength(2);
  });

  test('when metadata was requested, then the latest event wins regardless of bucket order', () => {
    const newer = latest('2026-11-20T10:00:00Z', 'b', 'new');
    const older = latest('2026-11-19T10:00:00Z', 'a', 'old');
    expect(
      mergeGroupCounts([[{ name: 'a', value: 1, latest: newer }], [{ name: 'a', value: 1, latest: older }]])[0],
    ).toEqual({ name: 'a', value: 2, latest: newer });
    expect(
      mergeGroupCounts([[{ name: 'a', value: 1, latest: older }], [{ name: 'a', value: 1, latest: newer }]])[0]?.latest,
    ).toEqual(newer);
  });

  test('when two events share a millisecond, then the larger (later) id is the latest', () => {
    expect(isLater(latest('2026-11-20T10:00:00Z', '0190-b'), latest('2026-11-20T10:00:00Z', '0190-a'))).toBe(true);
    expect(isLater(latest('2026-11-20T10:00:00Z', '0190-a'), latest('2026-11-20T10:00:00Z', '0190-b'))).toBe(false);
  });

  test('when nothing matched, then the merge is empty', () => {
    expect(mergeGroupCounts([[], []])).toEqual([]);
  });
});
