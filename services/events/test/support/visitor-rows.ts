import { addVisitor, emptySample, VISITOR_SAMPLE, type VisitorSample } from '../../src/sketches/visitor-sample';
import { seededHashes } from './seeded-hashes';
import type { Row } from './visitor-population';

/**
 * A sample as plain data, for comparing samples (the arrays' spare room left out). Visitors are
 * one string ("hash count countries more" per line): Jest compares one string far faster than
 * thousands of tuples.
 */
export interface PlainSample {
  sampled: boolean;
  events: number;
  visitors: string;
}

type Visitor = [hash: number, count: number, countries: string, more: boolean];
const line = (v: Visitor): string => v.join(' ');

/** The visitors of a plain sample as tuples. */
export function visitorsOf(p: PlainSample): Visitor[] {
  if (p.visitors === '') return [];
  return p.visitors.split('\n').map((l) => {
    const [hash, count, countries, more] = l.split(' ');
    return [Number(hash), Number(count), countries!, more === 'true'];
  });
}

export function plain(s: VisitorSample): PlainSample {
  const visitors: string[] = [];
  for (let i = 0; i < s.size; i++) {
    const codes = Array.from(s.countries.subarray(i * 4, i * 4 + 4)).filter((c) => c !== 0);
    const names = codes.map((c) => String.fromCharCode(65 + Math.floor((c - 1) / 26), 65 + ((c - 1) % 26)));
    visitors.push(line([s.hashes[i]!, s.counts[i]!, names.join(','), s.more[i] === 1]));
  }
  return { sampled: s.sampled, events: s.events, visitors: visitors.join('\n') };
}

/** What a sample of `rows` must be, computed the slow, obvious way. */
export function referenceSample(rows: readonly Row[], k: number = VISITOR_SAMPLE.k): PlainSample {
  const byHash = new Map<number, { count: number; countries: Set<string> }>();
  let events = 0;
  for (const row of rows) {
    events += row.events;
    const v = byHash.get(row.hash) ?? { count: 0, countries: new Set<string>() };
    v.count += row.events;
    if (row.country !== undefined) v.countries.add(row.country);
    byHash.set(row.hash, v);
  }
  const hashes = [...byHash.keys()].sort((a, b) => a - b);
  const visitors = hashes.slice(0, k).map((hash) => {
    const v = byHash.get(hash)!;
    const all = [...v.countries].sort();
    return line([hash, Math.min(v.count, VISITOR_SAMPLE.maxCount), all.slice(0, 4).join(','), all.length > 4]);
  });
  return { sampled: hashes.length > k, events, visitors: visitors.join('\n') };
}

export function sampleOfRows(rows: readonly Row[]): VisitorSample {
  const s = emptySample();
  for (const row of rows) addVisitor(s, row.hash, row.events, row.country);
  return s;
}

const COUNTRIES = ['US', 'DE', 'FR', 'GB', 'BR', 'JP', 'NL', undefined, undefined];

/**
 * `n` raw rows of visitors drawn from a pool of `pool` (so rows repeat visitors and different
 * calls with the same pool overlap), mostly 1 event, sometimes many, countries from a short list
 * with unknown among them, and a visitor now and then with more than 4 countries.
 */
export function randomRows(seed: number, n: number, pool: number, poolSeed = 1): Row[] {
  const poolNext = seededHashes(poolSeed);
  const visitors = Array.from({ length: pool }, poolNext);
  const next = seededHashes(seed);
  const rows: Row[] = [];
  for (let i = 0; i < n; i++) {
    const r = next();
    const hash = visitors[r % pool]!;
    const events = r % 7 === 0 ? 1 + (next() % 40) : 1;
    const hopper = hash % 50 === 0; // about 2 % of visitors: events from any of 26 countries
    const country = hopper ? String.fromCharCode(65 + (next() % 26)) + 'X' : COUNTRIES[next() % COUNTRIES.length];
    rows.push({ hash, events, country });
  }
  return rows;
}
