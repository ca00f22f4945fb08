#!/usr/bin/env node
// `BENCH_BESIDE=<another checkout, built> pnpm bench:visitor-union`: a report's visitor unions alone
// (the uniques aggregate's reportOwn, reportMergeInto and bytes after every merge, as
// reporting/read/report-groups.ts calls them, then one count per group), by this checkout's build
// and by another's, side by side in one process, alternating which goes first run by run. The
// input is shaped like the parts "30 days, uniques, group_by url" meets at 1M events: 6,700
// url groups of Zipf-like popularity, each visitor of a url coming back on a few of the 30 days
// (so a group meets one part per day it had visitors: 1 to 30 parts, of 1 to about 2,000 hashes,
// overlapping), the few most visited urls past the exact limit; parts arrive day by day, as the
// pages of each day's unit do (about 13,900 merges of 174,000 hashes). Then a campaign's groups
// over many referrers: 40 groups each meeting 600 small overlapping parts. Every part is a shared
// exact sketch, never written. Both builds' counts must agree for every group (the run stops
// otherwise). Prints p50 ms of each build and the peak of the groups' bytes (what the report's
// memory bound sees). BENCH_RUNS (31), BENCH_SEED (1).
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { p50Alternating } from './alternating-runs.mjs';
import { seededHashes } from './seeded-hashes.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const OTHER = process.env.BENCH_BESIDE;
const RUNS = Number(process.env.BENCH_RUNS ?? 31);
const SEED = Number(process.env.BENCH_SEED ?? 1);
const GROUPS = 6700;
const DAYS = 30;
const TOP_VISITORS = 40_000;
const say = (s) => process.stderr.write(`[visitor-union] ${s}\n`);

/** The uniques aggregate of a checkout's build. */
function build(checkout) {
  const module = require(path.join(checkout, 'services/events/dist/metrics/uniques-aggregate'));
  const { reportOwn, reportMergeInto, bytes } = module.uniquesAggregate;
  return { reportOwn, reportMergeInto, bytes, countOf: module.countOf };
}

/** A part as a decoded page holds it: an exact sketch of the sorted distinct hashes. */
const part = (hashes) => ({ kind: 'exact', hashes: Array.from(Float64Array.from(new Set(hashes)).sort()) });

/**
 * "uniques, group_by url" over 30 days: per day, the [group, part] pairs of that day's unit (a
 * part: the visitors of a url that day).
 */
function urlParts(next) {
  const uniform = () => next() / 2 ** 52;
  const days = Array.from({ length: DAYS }, () => []);
  for (let g = 0; g < GROUPS; g++) {
    const visitors = Math.max(1, Math.round(TOP_VISITORS / (g + 1) ** 1.4));
    const byDay = Array.from({ length: DAYS }, () => []);
    for (let v = 0; v < visitors; v++) {
      const hash = next();
      // most visitors come once, some come back (a geometric number of visits)
      do byDay[Math.floor(uniform() * DAYS)].push(hash);
      while (uniform() < 0.3);
    }
    for (let d = 0; d < DAYS; d++) if (byDay[d].length > 0) days[d].push([g, part(byDay[d])]);
  }
  return days;
}

/**
 * A campaign's groups over many referrers (the case a sorted merge per part served worst): 40
 * groups of 2,000 visitors, each meeting 600 entries of 5 to 60 of its visitors.
 */
function campaignParts(next) {
  const pools = Array.from({ length: 40 }, () => Array.from({ length: 2000 }, next));
  return Array.from({ length: 600 }, () =>
    pools.map((pool, g) => [g, part(Array.from({ length: 5 + (next() % 56) }, () => pool[next() % pool.length]))]),
  );
}

/** Every part merged into its group, the group's bytes taken after each merge, then every group counted. */
function report(b, units) {
  const states = [];
  const sizes = [];
  // the groups' bytes as the report's memory bound tracks them, and their peak
  let held = 0;
  let peak = 0;
  for (const parts of units)
    for (const [g, part] of parts) {
      const before = states[g];
      const after = before === undefined ? b.reportOwn(part) : b.reportMergeInto(before, part);
      states[g] = after;
      const size = b.bytes(after);
      held += size - (sizes[g] ?? 0);
      sizes[g] = size;
      if (held > peak) peak = held;
    }
  const counts = states.map((s) => b.countOf(s).value);
  return { counts, held, peak };
}

if (!OTHER) throw new Error('BENCH_BESIDE: the checkout (built) to compare with');
const builds = { this: build(root), other: build(path.resolve(OTHER)) };
const next = seededHashes(SEED);
for (const [name, units] of [
  ['uniques by url', urlParts(next)],
  ['a campaign by referrer', campaignParts(next)],
]) {
  const parts = units.flat();
  const perGroup = [];
  for (const [g] of parts) perGroup[g] = (perGroup[g] ?? 0) + 1;
  const hashes = parts.reduce((n, [, p]) => n + p.hashes.length, 0);
  const largest = parts.reduce((n, [, p]) => Math.max(n, p.hashes.length), 0);
  const answers = Object.fromEntries(Object.entries(builds).map(([b, build]) => [b, report(build, units)]));
  answers.this.counts.forEach((count, g) => {
    if (count !== answers.other.counts[g])
      throw new Error(`${name}, group ${g}: ${count} here, ${answers.other.counts[g]} beside`);
  });
  const past = answers.this.counts.filter((c) => c > 4096).length;
  say(
    `${name}: ${perGroup.length} groups (${perGroup.filter((n) => n > 1).length} meeting 2+ parts, ${past} past the ` +
      `exact limit), ${parts.length} parts (${parts.length - perGroup.length} merges, largest ${largest}), ${hashes} hashes; ` +
      `groups meeting at most 1, 2, 5, 10, 30 parts: ${[1, 2, 5, 10, 30].map((k) => perGroup.filter((n) => n <= k).length).join(', ')}`,
  );
  const mb = (x) => (x / 1e6).toFixed(2);
  const [here, other] = await p50Alternating(
    [() => report(builds.this, units), () => report(builds.other, units)],
    RUNS,
  );
  console.log(
    `${name}: merge + count p50 over ${RUNS} runs, this ${here.toFixed(2)} ms, beside ${other.toFixed(2)} ms, ` +
      `this / beside ${(here / other).toFixed(2)}; groups' bytes at their peak (the report's bound) this ` +
      `${mb(answers.this.peak)} MB, beside ${mb(answers.other.peak)} MB`,
  );
}
