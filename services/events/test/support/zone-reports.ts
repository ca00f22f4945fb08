import { ValidationError } from '@cm/platform';
import type { ApiKeyPrincipal } from '../../src/api-keys/api-key-service';
import { ReportService } from '../../src/reporting/http/report-service';
import { PlannedCountSource } from '../../src/reporting/read/planned-count-source';
import { OWNERS, PREFIX, REPORT_LIMITS, type RollupFixture } from './rollup-fixture';

export const NY = 'America/New_York';
export const caller: ApiKeyPrincipal = { id: 'zone-days', ownerIds: new Set(OWNERS) };

/** The fixture's rollups planned as without zone days (the planner never asks for them). */
export function unzonedService(f: RollupFixture): ReportService {
  const limits = REPORT_LIMITS;
  return new ReportService(
    new PlannedCountSource(f.db, {
      prefix: PREFIX,
      maxRangeDays: 400,
      concurrency: 8,
      queryTimeoutMs: 600_000,
      deadlineMs: 600_000,
      rollups: { marks: f.marks, cells: f.cells },
    }),
    limits,
  );
}

async function answer(run: () => Promise<unknown>): Promise<string> {
  try {
    return JSON.stringify(await run());
  } catch (err) {
    if (err instanceof ValidationError) return JSON.stringify({ error: err.details });
    throw err;
  }
}

/** Each body answered alike by the fixture's zone-day plan, raw events and the plan without zone days. */
export async function compareZoned(
  f: RollupFixture,
  seed: number,
  phase: string,
  bodies: Array<Record<string, unknown>>,
): Promise<void> {
  const unzoned = unzonedService(f);
  for (const [i, body] of bodies.entries()) {
    const [zoned, raw, plain] = await Promise.all([
      answer(() => f.rolled.report(caller, body)),
      answer(() => f.raw.report(caller, body)),
      answer(() => unzoned.report(caller, body)),
    ]);
    if (zoned !== raw || zoned !== plain)
      throw new Error(
        `seed ${seed}, ${phase}, query ${i}: ${JSON.stringify(body)}\nzone days: ${zoned.slice(0, 1500)}\nraw:       ${raw.slice(0, 1500)}\nunzoned:   ${plain.slice(0, 1500)}`,
      );
  }
}

/**
 * Reports over New York days from `first` to `last` (local dates). Three read the totals, which
 * zone days keep, so each plans with the zone days of the range whatever else a test asks: a
 * day series with uniques, a date-only range, a day series of one name. Then a date-only range
 * by url (a family zone days do not keep: UTC units) and a Chicago series (a zone not configured).
 */
export function nyReports(first: string, last: string): Array<Record<string, unknown>> {
  const owner = OWNERS[0];
  return [
    {
      owner_id: owner,
      created__gte: first,
      created__lte: last,
      interval: 'day',
      timezone: NY,
      metrics: 'count,uniques',
    },
    { owner_id: owner, created__gte: first, created__lte: last, timezone: NY },
    { owner_id: owner, created__gte: first, created__lte: last, interval: 'day', timezone: NY, name: 'view' },
    {
      owner_id: owner,
      created__gte: first,
      created__lte: last,
      timezone: NY,
      group_by: 'url',
      metrics: 'uniques,count',
    },
    { owner_id: owner, created__gte: first, created__lte: last, interval: 'day', timezone: 'America/Chicago' },
  ];
}

/**
 * Reports in New York over `first`..`last` that read a family zone days do not keep (pages,
 * country, attribution): group_by url, a country or utm_source filter, some as day series, some
 * filtered by name or device type as well. They must plan with UTC units alone.
 */
export function nyOtherFamilyReports(first: string, last: string): Array<Record<string, unknown>> {
  const owner = OWNERS[0];
  const day = { owner_id: owner, created__gte: first, created__lte: last, interval: 'day', timezone: NY };
  return [
    { ...day, group_by: 'url', metrics: 'count,uniques' },
    { ...day, country: ['US', 'fr'], metrics: 'count,uniques' },
    { ...day, utm_source: 'google', metrics: 'uniques' },
    { ...day, name: 'click', url: 'https://a.example/1' },
    { ...day, device_type: 'mobile', group_by: 'country', metrics: 'count,uniques' },
    { owner_id: owner, created__gte: first, created__lte: last, timezone: NY, group_by: 'utm_source,utm_medium' },
    { owner_id: owner, created__gte: first, created__lte: last, timezone: NY, content_id: 'c1', metrics: 'uniques' },
  ];
}
