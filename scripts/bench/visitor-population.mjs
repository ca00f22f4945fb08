// A reproducible campaign audience for bench:frequency-accuracy, drawn exactly as the tests'
// services/events/test/support/visitor-population.ts draws it (same seed, same visitors), but
// streamed: each event goes straight into its cell with `addVisitor`, and the truth is kept in
// typed arrays, so a million visitors fit. Visitors come in ascending hash order, so a cell's
// visitors are appended (the order never changes a sample; bench costs measure other orders).
import { seededHashes } from './seeded-hashes.mjs';

const HOME_COUNTRIES = [
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
const KNOWN = HOME_COUNTRIES.map(([c]) => c).filter((c) => c !== undefined);

function pick(x) {
  let acc = 0;
  for (const [country, share] of HOME_COUNTRIES) if (x < (acc += share)) return country;
  return undefined;
}

/** A bit per known country (KNOWN order), for on-target truth. */
export const maskOf = (countries) => countries.reduce((m, c) => m | (1 << KNOWN.indexOf(c)), 0);

/**
 * n visitors with P(at least k events) = k^-1.5 (capped at 1,000), 4 % of unknown country, 5 %
 * travellers (a second country on 30 % of their events), 0.2 % VPN hoppers (6 countries in turn),
 * each event in one of `cells` (emptySample() each, filled with addVisitor). Returns the truth:
 * events and a country mask per visitor.
 */
export function fillCells(api, seed, n, cells) {
  const next = seededHashes(seed);
  const u = () => (next() + 0.5) / 2 ** 52;
  const distinct = new Set();
  while (distinct.size < n) distinct.add(next());
  const hashes = Float64Array.from(distinct).sort();
  distinct.clear();
  const events = new Uint32Array(n);
  const masks = new Uint16Array(n);
  const cellCount = cells.length;
  for (let v = 0; v < n; v++) {
    const hash = hashes[v];
    const f = Math.min(1000, Math.floor(u() ** (-1 / 1.5)));
    const home = pick(u());
    const kind = u();
    const start = kind < 0.002 ? Math.floor(u() * KNOWN.length) : 0;
    const hops = kind < 0.002 ? Array.from({ length: 6 }, (_, i) => KNOWN[(start + i) % KNOWN.length]) : null;
    const second = kind >= 0.002 && kind < 0.052 ? KNOWN[Math.floor(u() * KNOWN.length)] : null;
    let mask = 0;
    for (let e = 0; e < f; e++) {
      const cell = Math.floor(u() * cellCount);
      const country = hops ? hops[e % 6] : second && u() < 0.3 ? second : home;
      if (country !== undefined) mask |= 1 << KNOWN.indexOf(country);
      api.addVisitor(cells[cell], hash, 1, country);
    }
    events[v] = f;
    masks[v] = mask;
  }
  return { events, masks };
}
