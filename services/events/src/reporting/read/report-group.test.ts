import type { GroupStates } from '../../metrics/registry';
import { countOf as visitorCount } from '../../metrics/uniques-aggregate';
import { sketchOfHashes } from '../../sketches/distinct-sketch';
import { groupTotals, namedGroups, reportGroup, withStates, type ReportGroup } from './report-group';

const DAY = 86_400_000;

/** A row of a url group on day `day`: its count and the visitors `from` .. `from + visitors - 1`. */
function row(name: string, url: string, day: number, count: number, from: number, visitors: number): ReportGroup {
  const states = { count, uniques: sketchOfHashes(Array.from({ length: visitors }, (_, i) => from + i)) };
  return reportGroup(name, [url], states as GroupStates, day * DAY);
}

/** The row withheld by the country floor (its states as they are: the floor's are empty). */
const withheldRow = (g: ReportGroup) => withStates(g, g.states, true);

const countOf = (g: ReportGroup | undefined) => g?.states.count as number | undefined;
const visitorsOf = (g: ReportGroup | undefined) => g && visitorCount(g.states.uniques!).value;

describe('groupTotals', () => {
  test('when a group has rows on several days, then its total merges them (visitors: the union) and leaves the rows as they were', () => {
    const rows = [
      row('impression', 'https://shop.example/?utm_source=news', 1, 5, 0, 3),
      row('impression', 'https://shop.example/?utm_source=news', 2, 7, 2, 3),
      row('click', 'https://shop.example/?utm_source=news', 1, 1, 0, 1),
    ];
    const totals = groupTotals(rows, []);
    const impressions = totals.find((t) => t.name === 'impression');
    expect(totals).toHaveLength(2);
    expect(countOf(impressions)).toBe(12);
    // visitors 0..2 and 2..4: five people, not six
    expect(visitorsOf(impressions)).toBe(5);
    expect(countOf(rows[0])).toBe(5);
    expect(visitorsOf(rows[0])).toBe(3);
  });

  test('when a group has one row, then that row is its total', () => {
    const only = row('click', 'https://münchen.example/Path?gclid=abc#top', 3, 2, 0, 2);
    expect(groupTotals([only], [])[0]).toBe(only);
  });

  test('when some rows of a group are withheld by the country floor, then its total is shown; when all are, it is withheld', () => {
    const shown = row('impression', 'https://a.example/', 1, 20, 0, 20);
    const withheld = withheldRow(row('impression', 'https://a.example/', 2, 0, 0, 0));
    const alone = withheldRow(row('impression', 'https://b.example/', 1, 0, 0, 0));
    const totals = groupTotals([withheld, shown, alone], []);
    expect(totals.find((t) => t.dims[0] === 'https://a.example/')?.belowFloor).toBeUndefined();
    expect(totals.find((t) => t.dims[0] === 'https://b.example/')?.belowFloor).toBe(true);
    expect(withheld.belowFloor).toBe(true);
  });

  test('when names are asked without events, then each takes part with its empty group, and a name with rows keeps its total', () => {
    const empty = { count: 0 } as GroupStates;
    const clicks = reportGroup('click', [], { count: 4 } as GroupStates, DAY);
    const totals = groupTotals([clicks], namedGroups(['click', 'signup'], empty));
    expect(totals.map((t) => [t.name, countOf(t)])).toEqual([
      ['click', 4],
      ['signup', 0],
    ]);
  });
});

describe('reportGroup', () => {
  test('when a group is made, then its keys are made when first asked and tell apart values that a separator inside them would join', () => {
    const a = reportGroup('click', ['https://shop.example/a?q=1,2', 'DE'], { count: 1 } as GroupStates);
    const b = reportGroup('click', ['https://shop.example/a?q=1', '2,DE'], { count: 1 } as GroupStates);
    expect(a.id).toBe(reportGroup('click', ['https://shop.example/a?q=1,2', 'DE'], {} as GroupStates).id);
    expect(a.id).not.toBe(b.id);
    expect(a.dimsId).not.toBe(b.dimsId);
    expect(reportGroup('view', a.dims, a.states).dimsId).toBe(a.dimsId);
  });

  test('when a group is copied with other states, then the copy keeps its name, fields, time and keys, and the withheld mark only when asked', () => {
    const g = reportGroup('impression', ['https://xn--mnchen-3ya.example/'], { count: 4 } as GroupStates, 2 * DAY);
    const id = g.id;
    const copy = withStates(g, { count: 0 } as GroupStates, true);
    expect([copy.name, copy.dims, copy.time, copy.id, copy.dimsId, copy.belowFloor]).toEqual([
      'impression',
      ['https://xn--mnchen-3ya.example/'],
      2 * DAY,
      id,
      g.dimsId,
      true,
    ]);
    expect(countOf(copy)).toBe(0);
    expect(countOf(g)).toBe(4);
    expect(g.belowFloor).toBeUndefined();
    expect(withStates(copy, copy.states, false).belowFloor).toBeUndefined();
    expect(withStates(copy, copy.states).belowFloor).toBe(true);
  });
});
