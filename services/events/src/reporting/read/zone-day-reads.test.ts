import { familyById } from '../../rollups/families';
import { ZONE_DAY_LEVEL, zoneDayStart } from '../../rollups/zone-days';
import { readCells } from './cell-reads';
import type { ReadPlan } from './read-plan';

const NY = 'America/New_York';
const start = zoneDayStart(NY, Date.parse('2026-01-15T12:00:00Z'))!;
const zoneDay = { unit: { level: ZONE_DAY_LEVEL, start, zone: NY }, g: `z:${NY}:${start}@g1` };
/** No store, cache or budget: the read must refuse before it would touch any. */
const untouched = undefined as never;

describe('readCells with zone days', () => {
  test('when a zone day is planned for a family zone days do not keep, then the read refuses it instead of reading "no events"', async () => {
    for (const id of ['p', 'g', 'c']) {
      const plan = { family: familyById(id), query: { ownerId: 'owner-a' } } as unknown as ReadPlan;
      await expect(readCells(plan, [zoneDay], untouched, untouched, untouched, untouched)).rejects.toThrow(
        /zone days do not keep/,
      );
    }
  });
});
