#!/usr/bin/env node
// `pnpm bench:country`: what the pixel's country lookup costs per hit (the built
// services/events/dist/country over the bundled DB-IP file, or COUNTRY_DB_PATH), on realistic
// client addresses (scripts/bench/client-addresses.mjs, BENCH_SEED, default 1): IPv4, IPv4-mapped
// IPv6, IPv6, and the mix a pixel sees. Variants, in one run, alternating, BENCH_ROUNDS (5) rounds
// of BENCH_LOOKUPS (1,000,000) lookups each:
//   as built          CountryLookup.of with its counters: address checks, the maxmind reader, decoded records kept
//   no record cache   the same, the reader decoding each hit's record again
//   reader only       maxmind's Reader#get on the bare address: the library's own floor
//   + address LRU     CountryLookup.of behind an lru-cache of 10,000 addresses, on a stream where each
//                     address comes back 4 times within 2,000 hits (a page view's few hits) and on
//                     one where every address is new (100,000 cycled)
// Printed: CPU ns per lookup (median of rounds) per address kind and the mix, and young-generation
// garbage collections per million lookups (what the lookup allocates, without a heap profiler).
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { readFileSync } from 'node:fs';
import { clientAddresses, countryFile } from './client-addresses.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const fromEvents = createRequire(path.join(root, 'services/events/package.json'));
const { CountryLookup } = require(path.join(root, 'services/events/dist/country/country-lookup'));
const { createCountryMetrics } = require(path.join(root, 'services/events/dist/country/country-metrics'));
const { prom } = require(path.join(root, 'packages/platform/dist'));
const { lookupAddress } = require(path.join(root, 'services/events/dist/country/country-address'));
const { Reader } = fromEvents('maxmind');
const { LRUCache } = fromEvents('lru-cache');

const SEED = Number(process.env.BENCH_SEED ?? 1);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const LOOKUPS = Number(process.env.BENCH_LOOKUPS ?? 1_000_000);
const bytes = readFileSync(countryFile);

const POOL = 100_000;
const { ipv4, mapped, ipv6, mix, database, random } = clientAddresses({ seed: SEED, count: POOL });
const int = (n) => Math.floor(random() * n);
const kinds = { ipv4, 'ipv4-mapped': mapped, ipv6, mix };
// each address 4 times within a window of 2,000 hits; and a stream where every address is new
const repeated = [];
for (let start = 0; start + 500 <= POOL; start += 500) {
  const window = kinds.mix.slice(start, start + 500).flatMap((a) => [a, a, a, a]);
  for (let i = window.length - 1; i > 0; i--) {
    const j = int(i + 1);
    [window[i], window[j]] = [window[j], window[i]];
  }
  repeated.push(...window);
}
// 100,000 different addresses in the mix's proportions: cycled through, every one is a miss of a 10,000-entry LRU
const distinct = [
  ...kinds.ipv4.slice(0, 55_000),
  ...kinds['ipv4-mapped'].slice(55_000, 70_000),
  ...kinds.ipv6.slice(0, 30_000),
];
for (let i = distinct.length - 1; i > 0; i--) {
  const j = int(i + 1);
  [distinct[i], distinct[j]] = [distinct[j], distinct[i]];
}

// with its counters, as the pixel runs it
const asBuilt = new CountryLookup(database, createCountryMetrics(new prom.Registry()));
const noCacheReader = new Reader(bytes);
const codeOf = (r) => r?.country_code ?? r?.country?.iso_code;
const noCacheMetrics = createCountryMetrics(new prom.Registry());
const noCache = {
  of(address) {
    const target = lookupAddress(address);
    if (target === undefined) return noCacheMetrics.looked('not_public');
    const country = codeOf(noCacheReader.get(target));
    noCacheMetrics.looked(country === undefined ? 'not_found' : 'known');
    return country;
  },
};
const cachedReader = new Reader(bytes, { cache: new Map() });
const readerOnly = { of: (address) => codeOf(cachedReader.get(address)) };
const lru = new LRUCache({ max: 10_000 });
const UNKNOWN = '';
const withLru = {
  of(address) {
    const hit = lru.get(address);
    if (hit !== undefined) return hit === UNKNOWN ? undefined : hit;
    const country = asBuilt.of(address);
    lru.set(address, country ?? UNKNOWN);
    return country;
  },
};

let gcs = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) if (e.detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) gcs++;
}).observe({ entryTypes: ['gc'] });

let sink = 0;
/** CPU time of this process per lookup (on a shared machine wall time counts other processes too). */
async function run(lookup, addresses) {
  const n = addresses.length;
  // GC entries are delivered a little later: let the ones from before the loop in first
  await new Promise((r) => setTimeout(r, 20));
  const gcBefore = gcs;
  const cpu = process.cpuUsage();
  for (let i = 0; i < LOOKUPS; i++) {
    const c = lookup.of(addresses[i % n]);
    if (c !== undefined) sink += c.length;
  }
  const used = process.cpuUsage(cpu);
  await new Promise((r) => setTimeout(r, 20));
  return { ns: ((used.user + used.system) * 1000) / LOOKUPS, gcs: gcs - gcBefore };
}

const variants = [
  ['as built', asBuilt, ['ipv4', 'ipv4-mapped', 'ipv6', 'mix']],
  ['no record cache', noCache, ['ipv4', 'ipv6', 'mix']],
  // the reader cannot take the mapped form (it finds nothing there), so the floor is on bare addresses
  ['reader only', readerOnly, ['ipv4', 'ipv6']],
  ['+ address LRU', withLru, ['repeated', 'distinct']],
  ['as built', asBuilt, ['repeated', 'distinct']],
];
const streams = { ...kinds, repeated, distinct };
const results = new Map();
// warm-up: every variant on every stream once (JIT, decoded records)
for (const [, lookup, names] of variants) for (const s of names) await run(lookup, streams[s]);
for (let round = 0; round < ROUNDS; round++)
  for (const [label, lookup, names] of variants)
    for (const s of names) {
      const key = `${label}|${s}`;
      const r = await run(lookup, streams[s]);
      if (!results.has(key)) results.set(key, []);
      results.get(key).push(r);
    }

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(
  `country lookup, ${path.basename(countryFile)} (built ${database.builtAt.toISOString().slice(0, 10)}), Node ${process.version}, ${ROUNDS} rounds x ${LOOKUPS.toLocaleString('en')} lookups, seed ${SEED}\n`,
);
console.log('| variant | addresses | CPU ns per lookup (median) | min..max | young GCs per 1M lookups |');
console.log('| --- | --- | ---: | ---: | ---: |');
for (const [key, rs] of results) {
  const [label, s] = key.split('|');
  const ns = rs.map((r) => r.ns);
  const g = median(rs.map((r) => r.gcs)) * (1_000_000 / LOOKUPS);
  console.log(
    `| ${label} | ${s} | ${median(ns).toFixed(0)} | ${Math.min(...ns).toFixed(0)}..${Math.max(...ns).toFixed(0)} | ${g.toFixed(0)} |`,
  );
}
if (sink === 0) console.error('no country found at all: is this a country database?');
