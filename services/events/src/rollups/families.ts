import { AGGREGATE_NAMES, aggregateOf, type AggregateName } from '../metrics/registry';
import type { Dimension } from '../storage/dimensions';

/**
 * Rollup cells are kept in families: each family keys its entries by the event name and a fixed
 * set of dimensions (and keeps the device types apart inside each entry). A report reads the
 * smallest family whose dimensions include every dimension it filters or groups by; one that no
 * family covers (for example a country filter with a group by url) is answered from raw events.
 * Families are disjoint projections of the same events: each holds every event once.
 */
export interface Family {
  /** Its id in stored page ids: stable forever. */
  readonly id: string;
  readonly dimensions: readonly Dimension[];
  /** The aggregates its pages keep (each aggregate says where it is kept: Aggregate.families). */
  readonly aggregates: readonly AggregateName[];
}

function family(id: string, dimensions: readonly Dimension[]): Family {
  const aggregates = AGGREGATE_NAMES.filter((a) => aggregateOf(a).families?.includes(id) ?? true);
  return { id, dimensions, aggregates };
}

export const FAMILIES: readonly Family[] = [
  /** Totals per name: by-name reports. */
  family('t', []),
  /** Pages: content_id and url (and the campaign filter, a set of urls). */
  family('p', ['content_id', 'url']),
  /** Where the audience is. */
  family('g', ['country']),
  /**
   * How visitors arrived: the campaign's source, medium and name, and the referring site. Not
   * `utm_content` and `utm_term`: ad variants and search terms multiply the entries of every
   * unit (at 1M events of the bench's web mix, 2.5 times the month's entries of this family),
   * so reports filtering or grouping by them read raw events.
   */
  family('c', ['utm_source', 'utm_medium', 'utm_campaign', 'referrer']),
];

/**
 * Families of earlier page formats, read only to convert their units (legacy-migration.ts):
 * `a` (format 2) kept all six attribution fields.
 */
const RETIRED_FAMILIES: readonly Family[] = [
  family('a', ['utm_source', 'utm_medium', 'utm_campaign', 'utm_content', 'utm_term', 'referrer']),
];

/** The families of pages of format 2, the one before `c` replaced `a`. */
export const FORMAT_2_FAMILIES: readonly Family[] = [...FAMILIES.filter((f) => f.id !== 'c'), ...RETIRED_FAMILIES];

/** Every dimension any family keeps (what the hour pipeline groups by). */
export const FAMILY_DIMENSIONS: readonly Dimension[] = [...new Set(FAMILIES.flatMap((f) => f.dimensions))];

/** The family with the fewest dimensions that includes all of `needed` and keeps `aggregates`, or undefined when none does. */
export function familyFor(needed: ReadonlySet<Dimension>, aggregates: readonly AggregateName[]): Family | undefined {
  let best: Family | undefined;
  for (const family of FAMILIES) {
    if (![...needed].every((d) => family.dimensions.includes(d))) continue;
    if (!aggregates.every((a) => family.aggregates.includes(a))) continue;
    if (!best || family.dimensions.length < best.dimensions.length) best = family;
  }
  return best;
}

/** A family by its stored id: the current ones, and retired ones whose pages may still be read to convert them. */
export function familyById(id: string): Family | undefined {
  return FAMILIES.find((f) => f.id === id) ?? RETIRED_FAMILIES.find((f) => f.id === id);
}
