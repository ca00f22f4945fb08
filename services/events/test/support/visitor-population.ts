import { seededHashes } from './seeded-hashes';

/**
 * A reproducible campaign audience for the visitor-sample tests: n visitors with skewed
 * frequencies (P(at least k events) = k^-1.5, capped at 1,000: about 65 % once, 3 % ten times or
 * more), a home country each (4 % unknown), 5 % travellers with a second country on 30 % of their
 * events, 0.2 % VPN hoppers cycling through 6 countries; each event in one of `cellCount` cells
 * (hours). scripts/bench/frequency-accuracy.mjs draws the same way.
 */
export interface Visitor {
  hash: number;
  events: number;
  /** The distinct known countries of its events. */
  countries: string[];
}

export interface Row {
  hash: number;
  events: number;
  country: string | undefined;
}

export interface Population {
  /** Ascending by hash. */
  visitors: Visitor[];
  /** One list of raw rows per cell, ascending by hash: a visitor's events per country in that cell. */
  cells: Row[][];
}

export const HOME_COUNTRIES: ReadonlyArray<readonly [string | undefined, number]> = [
  ['US', 0.3],
  ['DE', 0.12],
  ['GB', 0.1],
  ['FR', 0.1],
  ['IN', 0.08],
  ['BR', 0.06],
  ['CA', 0.05],
  ['JP', 0.04],
  ['ES', 0.04],
  ['IT', 0.03],
  ['NL', 0.02],
  ['PL', 0.02],
  [undefined, 0.04],
];
const KNOWN = HOME_COUNTRIES.map(([c]) => c).filter((c): c is string => c !== undefined);

function pick(x: number): string | undefined {
  let acc = 0;
  for (const [country, share] of HOME_COUNTRIES) if (x < (acc += share)) return country;
  return undefined;
}

export function visitorPopulation(seed: number, n: number, cellCount: number): Population {
  const next = seededHashes(seed);
  const u = (): number => (next() + 0.5) / 2 ** 52;
  const distinct = new Set<number>();
  while (distinct.size < n) distinct.add(next());
  const hashes = Float64Array.from(distinct).sort();
  const cells: Row[][] = Array.from({ length: cellCount }, () => []);
  const visitors: Visitor[] = [];
  for (const hash of hashes) {
    const events = Math.min(1000, Math.floor(u() ** (-1 / 1.5)));
    const home = pick(u());
    const kind = u();
    const start = kind < 0.002 ? Math.floor(u() * KNOWN.length) : 0;
    const hops = kind < 0.002 ? Array.from({ length: 6 }, (_, i) => KNOWN[(start + i) % KNOWN.length]!) : null;
    const second = kind >= 0.002 && kind < 0.052 ? KNOWN[Math.floor(u() * KNOWN.length)]! : null;
    const rows: Array<Row & { cell: number }> = [];
    const countries = new Set<string>();
    for (let e = 0; e < events; e++) {
      const cell = Math.floor(u() * cellCount);
      const country = hops ? hops[e % 6] : second && u() < 0.3 ? second : home;
      if (country !== undefined) countries.add(country);
      const row = rows.find((r) => r.cell === cell && r.country === country);
      if (row) row.events++;
      else rows.push({ cell, hash, events: 1, country });
    }
    for (const { cell, ...row } of rows) cells[cell]!.push(row);
    visitors.push({ hash, events, countries: [...countries] });
  }
  return { visitors, cells };
}
