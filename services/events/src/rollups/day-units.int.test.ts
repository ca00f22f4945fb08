import { v7 } from 'uuid';
import type { EventDocument } from '../storage/event-document';
import {
  currentPages,
  prng,
  randomEvents,
  startRollupFixture,
  type RollupFixture,
} from '../../test/support/rollup-fixture';
import type { RollupBuilderOptions } from './rollup-builder';

// 4-hour units and days whose hours are built in the same pass are made from the hours' tables in
// memory (day-units.ts). Their pages must be byte for byte those merged from the hours' stored
// pages: every unit, owner, family and page, on web-shaped events, visitor crowds past the
// sample's size, cells past the owner's cap in a day but not in its hours, and small pages.
const DAY = Date.parse('2026-10-20T00:00:00Z');
const HOUR = 3_600_000;

/** Crowds of distinct visitors on one page: a 4-hour unit and the day hold more than a sample keeps (4,096). */
function crowd(): EventDocument[] {
  const random = prng(29);
  const out: EventDocument[] = [];
  for (let i = 0; i < 6000; i++) {
    const t = DAY + (1 + (i % 3)) * HOUR + Math.floor(random() * HOUR);
    out.push({
      _id: v7({ msecs: t, random: Uint8Array.from({ length: 16 }, () => Math.floor(random() * 256)) }),
      owner_id: '7001',
      name: i % 5 === 0 ? 'click' : 'impression',
      url: 'https://Shop.example/Produkt/%C3%BCber?utm_source=Newsletter&gclid=Cj0KCQ#reviews',
      content_id: 'p-1',
      device_type: i % 7 === 0 ? 'mobile' : 'desktop',
      bot: false,
      metadata: { campaign: 'crowd' },
      created: new Date(t),
      visitor: Math.floor(random() * 2 ** 52),
      ...(i % 3 === 0 ? { country: ['DE', 'AT', 'CH', 'US', 'BR'][i % 5]! } : {}),
      ...(i % 4 === 0 ? { measures: { engaged_ms: (i * 37) % 90_000 } } : {}),
    });
  }
  return out;
}

async function buildAll(f: RollupFixture, opts: Partial<RollupBuilderOptions>, calls: string[]): Promise<void> {
  const hooks = {
    afterReserve: (id: string) => void calls.push(`reserve ${id}`),
    afterCells: (id: string) => void calls.push(`cells ${id}`),
  };
  for (let pass = 0; pass < 5; pass++) {
    const { built, failed } = await f.builder({ ...opts, hooks }).runOnce();
    expect(failed).toEqual([]);
    if (built.every((n) => n === 0)) return;
  }
}

describe('4-hour units and days from the hours in memory', () => {
  let events: EventDocument[];
  beforeAll(() => {
    events = [...randomEvents(prng(17), 3000, DAY, DAY + 36 * HOUR), ...crowd()];
  });

  test.each([
    ['the default cap and page size', {}],
    ['a cap the day passes and its hours do not, and small pages', { maxCellsPerOwner: 60, maxPageBytes: 2048 }],
  ])(
    'when a day is built with %s, then its 4-hour units and day equal those merged from stored pages, byte for byte',
    async (_label, opts: Partial<RollupBuilderOptions>) => {
      const [memory, stored] = [await startRollupFixture(), await startRollupFixture()];
      try {
        await memory.write(events, 500);
        await stored.write(events, 500);
        const inMemory: string[] = [];
        const fromPages: string[] = [];
        await buildAll(memory, opts, inMemory);
        await buildAll(stored, { ...opts, parentsFromHours: false }, fromPages);
        const expected = await currentPages(stored);
        const pages = await currentPages(memory);
        expect([...pages.keys()].sort()).toEqual([...expected.keys()].sort());
        for (const [key, page] of expected) expect({ key, page: pages.get(key) }).toEqual({ key, page });
        expect([...expected.keys()].some((k) => k.startsWith('4:'))).toBe(true);
        if (opts.maxCellsPerOwner) {
          // some family over its cap in a 4-hour unit, and kept in every hour of that unit
          const over = [...expected].filter(([k, p]) => k.startsWith('2:') && p.over).map(([k]) => k.split(' '));
          expect(
            over.some(([unit, owner, family]) =>
              [0, 1, 2, 3].every((h) => {
                const hour = expected.get(`0:${Number(unit!.slice(2)) + h * HOUR} ${owner} ${family} 0`);
                return hour !== undefined && !hour.over;
              }),
            ),
          ).toBe(true);
        }
        // the parents were built in the hours' pass: reserved before the hours' cells were written
        const order = (calls: string[], call: string) => {
          expect(calls).toContain(call);
          return calls.indexOf(call);
        };
        for (const parent of [`reserve 2:${DAY}`, `reserve 4:${DAY}`]) {
          expect(order(inMemory, parent)).toBeLessThan(order(inMemory, `cells 0:${DAY}`));
          expect(order(fromPages, parent)).toBeGreaterThan(order(fromPages, `cells 0:${DAY + 23 * HOUR}`));
        }
      } finally {
        await memory.stop();
        await stored.stop();
      }
    },
    120_000,
  );
});
