// The cost per call of the visitor sample's hot paths, for bench:frequency-accuracy: addVisitor
// in the orders a rollup builder meets, mergeSampleInto beside the pure mergeSamples for the
// shapes a rollup and a report merge, the stored form, and the answers. Microseconds per call, the
// best of BENCH_ROUNDS (15) rounds: the machine is shared, and the best round is the one least
// disturbed. An in-place merge gets, per call, a fresh copy of
// its target with room for K visitors (a report's target after its first merges), made outside
// the timed loop; a report's loop is measured as it runs (parts merged one after the other into
// one target). With a second build (BENCH_COMPARE_DIST: another services/events/dist), each
// figure is measured for both builds one after the other, side by side.
import os from 'node:os';
import { seededHashes } from './seeded-hashes.mjs';

const COUNTRIES = ['US', 'DE', 'FR', 'GB', 'US', 'IN', undefined];
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);

/** Microseconds per call, best of ROUNDS rounds; `prepare` runs before each round, untimed. */
function timeIt(calls, fn, prepare = () => undefined) {
  let best = Infinity;
  for (let round = 0; round < ROUNDS; round++) {
    const state = prepare();
    globalThis.gc?.(); // with node --expose-gc: no collection of the last round's garbage in this one
    const started = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) fn(i, state);
    best = Math.min(best, Number(process.hrtime.bigint() - started) / 1000 / calls);
  }
  return best < 1 ? best.toFixed(3) : best.toFixed(1);
}

/** The cases, for one build of the API: [what, () => microseconds]. */
function cases(api) {
  const { VISITOR_SAMPLE, addVisitor, decodeSample, emptySample, encodeSample, frequencyOf } = api;
  const { mergeSampleInto, mergeSamples, mergeStoredSampleInto, onTargetReachOf, reachOf } = api;
  const K = VISITOR_SAMPLE.k;
  const next = seededHashes(77);
  const randomHashes = (n) => Float64Array.from({ length: n }, next);
  /** A sample of n random visitors (1 to 3 events, a country each), built in ascending order. */
  const sampleOf = (n) => {
    const s = emptySample();
    for (const hash of randomHashes(n).sort()) addVisitor(s, hash, 1 + (hash % 3), COUNTRIES[hash % 7]);
    return s;
  };
  /** A copy with room for K visitors (the state's fields are documented in visitor-sample-model.ts). */
  const owned = (s) => {
    const t = { ...s, hashes: new Float64Array(K), counts: new Uint32Array(K) };
    Object.assign(t, { countries: new Uint16Array(4 * K), more: new Uint8Array(K) });
    t.hashes.set(s.hashes.subarray(0, s.size));
    t.counts.set(s.counts.subarray(0, s.size));
    t.countries.set(s.countries.subarray(0, 4 * s.size));
    t.more.set(s.more.subarray(0, s.size));
    return t;
  };
  const add = (s, h) => addVisitor(s, h, 1, COUNTRIES[h % 7]);
  const fresh = randomHashes(K);
  const ascending = Float64Array.from(fresh).sort();
  const full = sampleOf(K);
  const million = sampleOf(1_000_000);
  const otherMillion = sampleOf(1_000_000);
  const newcomers = randomHashes(200_000);
  const calls = 300;
  const inPlace = (target, part) => () =>
    timeIt(
      calls,
      (i, t) => mergeSampleInto(t[i], part),
      () => Array.from({ length: calls }, () => owned(target)),
    );
  /** A report's loop: parts merged one after the other into one target, in place or purely. */
  const chain = (parts) => [
    () => timeIt(parts.length, (i, t) => mergeSampleInto(t, parts[i]), emptySample),
    () =>
      timeIt(
        parts.length,
        (i, box) => (box.s = mergeSamples(box.s, parts[i])),
        () => ({ s: emptySample() }),
      ),
  ];
  const chains = [
    [
      '720 hours of a 1M-visitor month (3,500 visitors each, exact) into one sample',
      Array.from({ length: 720 }, () => sampleOf(3_500)),
    ],
    [
      '30 days of it (80,000 visitors each, sampled) into one sample',
      Array.from({ length: 30 }, () => sampleOf(80_000)),
    ],
    [
      '720 hours of a 10k-visitor month (35 visitors each) into one sample',
      Array.from({ length: 720 }, () => sampleOf(35)),
    ],
  ];
  const merges = [
    [
      'two samples of 1M visitors each (the halves of a report), a fresh copy of the target per call',
      million,
      otherMillion,
    ],
    ['50 visitors into a sampled month, a fresh copy of the target per call', million, sampleOf(50)],
    [
      '2,000 into 2,000 (exact, the union stays exact), a fresh copy of the target per call',
      sampleOf(2_000),
      sampleOf(2_000),
    ],
  ];
  const stored = encodeSample(million);
  const storedTargets = () => Array.from({ length: calls }, () => owned(otherMillion));
  return [
    [
      'addVisitor: new visitors in random order, a cell growing from 0 to 4,096 (binary search, then a shift)',
      () => timeIt(K, (i, s) => add(s, fresh[i]), emptySample),
    ],
    [
      'addVisitor: new visitors in ascending order, 0 to 4,096 (appended)',
      () => timeIt(K, (i, s) => add(s, ascending[i]), emptySample),
    ],
    [
      'addVisitor: a visitor already in a cell of 4,096 (count and country)',
      () =>
        timeIt(
          K,
          (i, s) => add(s, s.hashes[(i * 7919) % K]),
          () => owned(full),
        ),
    ],
    [
      'addVisitor: random visitors into the full sample of a 1M-visitor hour (most above its K-th hash)',
      () =>
        timeIt(
          200_000,
          (i, s) => add(s, newcomers[i]),
          () => owned(million),
        ),
    ],
    ...chains.flatMap(([what, parts]) => {
      const [own, pure] = chain(parts);
      return [
        [`mergeSampleInto: ${what}`, own],
        [`mergeSamples (pure): ${what}`, pure],
      ];
    }),
    ...merges.flatMap(([what, target, part]) => [
      [`mergeSampleInto: ${what}`, inPlace(target, part)],
      [`mergeSamples (pure): ${what}`, () => timeIt(calls, () => mergeSamples(target, part))],
    ]),
    [
      `encodeSample: a full sample (${stored.length.toLocaleString('en')} bytes)`,
      () => timeIt(1000, () => encodeSample(million)),
    ],
    ['decodeSample: the same', () => timeIt(1000, () => decodeSample(stored))],
    [
      'mergeStoredSampleInto: it into a full sample',
      () => timeIt(calls, (i, t) => mergeStoredSampleInto(t[i], stored), storedTargets),
    ],
    [
      'decodeSample, then mergeSampleInto: the same',
      () => timeIt(calls, (i, t) => mergeSampleInto(t[i], decodeSample(stored)), storedTargets),
    ],
    ['reachOf', () => timeIt(10_000, () => reachOf(million))],
    ['frequencyOf: a full sample', () => timeIt(5000, () => frequencyOf(million))],
    [
      'onTargetReachOf: a full sample, 3 target countries',
      () => timeIt(5000, () => onTargetReachOf(million, new Set(['US', 'DE', 'GB']))),
    ],
  ];
}

export function measureCosts(api, compare) {
  const builds = [cases(api), ...(compare ? [cases(compare)] : [])];
  const [one, five, fifteen] = os.loadavg().map((x) => x.toFixed(1));
  console.log(
    `\nload average ${one}, ${five}, ${fifteen} on ${os.availableParallelism()} cores; best of ${ROUNDS} rounds`,
  );
  console.log(`\n| operation | us per call${compare ? ' | us per call, BENCH_COMPARE_DIST build' : ''} |`);
  console.log(`| --- | ---:${compare ? ' | ---:' : ''} |`);
  for (let i = 0; i < builds[0].length; i++) {
    const figures = builds.map((b) => (b[i] && b[i][0] === builds[0][i][0] ? b[i][1]() : 'n/a'));
    console.log(`| ${builds[0][i][0]} | ${figures.join(' | ')} |`);
  }
}
