import type { DecodedPage } from '../../rollups/page-reader';
import { pageStringIds, SharedStringIds, StringIds } from './string-ids';

/** A page of one entry per string, its one key position holding that string. */
const page = (names: string[], strings: string[]): DecodedPage =>
  ({
    names,
    strings,
    dims: 1,
    count: strings.length,
    keyOf: Uint32Array.from(strings.keys()),
  }) as unknown as DecodedPage;

describe('string ids', () => {
  it('when a string is asked for again, then it has the same number, and another string another', () => {
    const table = new StringIds();
    const a = table.id('https://shop.example/p?utm_source=news&gclid=Cj0KCQ');
    const b = table.id('https://shop.example/p');
    expect(table.id('https://shop.example/p?utm_source=news&gclid=Cj0KCQ')).toBe(a);
    expect(b).not.toBe(a);
  });

  it("when a report meets a page, then every name and string has its table's number, kept for the next report of that table", () => {
    const table = new StringIds();
    table.id('https://b.example/#top');
    const p = page(['impression', 'click'], ['c1', 'https://a.example/?fbclid=x', 'https://b.example/#top']);
    const first = pageStringIds(p, table, [0]);
    expect([...first.strings]).toEqual([
      table.id('c1'),
      table.id('https://a.example/?fbclid=x'),
      table.id('https://b.example/#top'),
    ]);
    expect([...first.names]).toEqual([table.id('impression'), table.id('click')]);
    // the string the table had already keeps its number
    expect(first.strings[2]).toBe(0);
    expect(pageStringIds(p, table, [0])).toBe(first);
  });

  it('when a report groups by one of two key positions, then only that position’s strings are looked up, the other’s when a report asks for it', () => {
    const table = new StringIds();
    // entries (content id, url): two entries, strings [c1, url1, c2, url2]
    const p = {
      names: ['view'],
      strings: ['c1', 'https://a.example/?gclid=1', 'c2', 'https://a.example/?gclid=2'],
      dims: 2,
      count: 2,
      keyOf: Uint32Array.from([0, 1, 2, 3]),
    } as unknown as DecodedPage;
    const byContent = pageStringIds(p, table, [0]);
    expect([...byContent.strings]).toEqual([table.id('c1'), -1, table.id('c2'), -1]);

    const byBoth = pageStringIds(p, table, [0, 1]);
    expect(byBoth).toBe(byContent);
    expect([...byBoth.strings]).toEqual([
      table.id('c1'),
      table.id('https://a.example/?gclid=1'),
      table.id('c2'),
      table.id('https://a.example/?gclid=2'),
    ]);
  });

  it('when two pages hold the same text as different strings, then both get one number', () => {
    const table = new StringIds();
    const url = ['https://shop.example/', 'item?utm_campaign=spring'];
    const one = pageStringIds(page(['view'], [url.join('')]), table, [0]);
    const two = pageStringIds(page(['view'], [`${url[0]}${url[1]}`]), table, [0]);
    expect(two.strings[0]).toBe(one.strings[0]);
    expect(two.names[0]).toBe(one.names[0]);
  });

  it('when a page is met through another table, then its numbers are that table\u2019s (one table never reads another\u2019s)', () => {
    const one = new StringIds();
    const other = new StringIds();
    other.id('padding so the numbers differ');
    const p = page(['impression'], ['https://a.example/']);
    const first = [...pageStringIds(p, one, [0]).strings];
    expect(first).toEqual([one.id('https://a.example/')]);

    const through = pageStringIds(p, other, [0]);
    expect([...through.strings]).toEqual([other.id('https://a.example/')]);
    expect(through.strings[0]).not.toBe(first[0]);
    expect(other.generation).not.toBe(one.generation);
    // and back: looked up again in the first table, the same numbers as before
    expect([...pageStringIds(p, one, [0]).strings]).toEqual(first);
  });

  it('when the shared table is full, then the next report takes a new one and a report holding the old keeps it', () => {
    const shared = new SharedStringIds();
    const held = shared.forReport();
    expect(shared.forReport()).toBe(held);
    // past the bound on strings (2^18)
    for (let i = 0; i <= 2 ** 18; i++) held.id(`https://shop.example/item/${i}?utm_campaign=spring`);
    expect(held.full).toBe(true);

    const next = shared.forReport();
    expect(next).not.toBe(held);
    expect(next.full).toBe(false);
    expect(held.id('https://shop.example/item/7?utm_campaign=spring')).toBe(7);
  });

  it('when the characters pass their bound before the strings do, then the table is full too', () => {
    const table = new StringIds();
    const long = 'x'.repeat(64 * 1024);
    for (let i = 0; i < 128; i++) table.id(`${i}${long}`);
    expect(table.full).toBe(true);
  });
});
