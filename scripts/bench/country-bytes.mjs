#!/usr/bin/env node
// `pnpm bench:country-bytes`: what the country dimension costs in storage per event. The same
// BENCH_EVENTS (200,000) events of bench:report's mix (report-data.mjs, over BENCH_DAYS days,
// BENCH_URLS Zipf URLs) are loaded twice, each into a database of its own, through the consumer's
// BucketWriter with rollup write marks (report-load.mjs): once without countries, once with each
// visitor's country (a visitor is in one place: about 30 % US, 3 % unknown, the rest Zipf over 59
// more codes). The rollup builder then catches up on each, and the page bytes it wrote are tallied
// (report-load.mjs catchUp: the binary columns by column and family, and the pages as BSON). It
// prints, per event, the pages of each database, of the `g` (country) family alone, and the raw
// event documents with and without the `country` field (BSON, before any storage engine
// compression). On the database with countries it then times what the country floor costs a
// report: the built report service with REPORT_COUNTRY_FLOOR 0 and 10 on the same rollups,
// alternating, BENCH_RUNS (15) runs of each country report after a warm-up (the floor makes a
// report that did not ask for uniques read the visitor sketches). Data store: MONGO_URL when
// set, else a MongoDB stand-in (BENCH_HEAP, 4g here).
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { catchUp, gcPauses, loadEvents, rawEventBytes, startBenchStandIn } from './report-load.mjs';
import { OWNERS } from './report-data.mjs';
import { fmt, quantile, reportBenchSettings } from './report-scenarios.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const platform = require(path.join(root, 'packages/platform/dist'));
const dist = (p) => require(path.join(root, 'services/events/dist', p));
const { PlannedCountSource } = dist('reporting/read/planned-count-source');
const { ReportService } = dist('reporting/http/report-service');
const { CellStore } = dist('rollups/cell-store');

const EVENTS = Number(process.env.BENCH_EVENTS ?? 200_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const SETTINGS = reportBenchSettings();
const say = (msg) => console.error(`[bench] ${msg}`);
const logger = platform.createLogger({ service: 'bench-country-bytes', level: 'error' });

/** The 59 codes after US, most visited first (a long tail, Zipf-weighted below). */
const TAIL = (
  'GB DE FR CA IN BR JP AU ES IT NL MX PL SE TR KR ID PH ZA AR BE CH AT IE NO DK FI PT CZ RO HU GR IL AE SA ' +
  'EG NG KE MA CO CL PE VN TH MY SG NZ PK BD UA HK TW UY EC DZ TN LK XK'
).split(' ');
const US_SHARE = 0.3;
const UNKNOWN_SHARE = 0.03;
const TAIL_CDF = (() => {
  const weights = TAIL.map((_, i) => 1 / (i + 1));
  const sum = weights.reduce((a, b) => a + b, 0);
  let acc = 0;
  return weights.map((w) => (acc += w / sum));
})();

/** A visitor's country, from its hash alone (so every event of a visitor has the same one); undefined: unknown. */
function countryOf(visitor) {
  // the hash's low 26 bits, mixed, as a uniform number in [0, 1)
  let x = (visitor % 2 ** 26) ^ Math.floor(visitor / 2 ** 26);
  x = Math.imul(x ^ (x >>> 16), 0x45d9f3b);
  x = Math.imul(x ^ (x >>> 16), 0x45d9f3b);
  const u = ((x ^ (x >>> 16)) >>> 0) / 2 ** 32;
  if (u < UNKNOWN_SHARE) return undefined;
  if (u < UNKNOWN_SHARE + US_SHARE) return 'US';
  const t = (u - UNKNOWN_SHARE - US_SHARE) / (1 - UNKNOWN_SHARE - US_SHARE);
  return TAIL[TAIL_CDF.findIndex((c) => t < c)] ?? TAIL[TAIL.length - 1];
}

/** Loads the events (with countries or not), builds their rollups, and returns the tallies. */
async function measure(mongoUrl, withCountries) {
  const handle = await platform.connectMongo(mongoUrl, `bench_country_${randomBytes(4).toString('hex')}`);
  const raw = { events: 0, bytes: 0, countryBytes: 0, countries: new Map() };
  try {
    const onBatch = (docs) => {
      for (const doc of docs) {
        const before = rawEventBytes(doc);
        const country = withCountries ? countryOf(doc.visitor) : undefined;
        if (country !== undefined) doc.country = country;
        const after = country === undefined ? before : rawEventBytes(doc);
        raw.events++;
        raw.bytes += after;
        raw.countryBytes += after - before;
        raw.countries.set(country ?? 'unknown', (raw.countries.get(country ?? 'unknown') ?? 0) + 1);
      }
    };
    const label = withCountries ? 'with countries' : 'without countries';
    const { marks } = await loadEvents(handle.db, EVENTS, SETTINGS, {
      logger,
      say: (m) => say(`${label}: ${m}`),
      onBatch,
    });
    const built = await catchUp(handle.db, marks, { say: (m) => say(`${label}: ${m}`) });
    const floorCost = withCountries ? await timeFloor(handle.db, marks) : undefined;
    return { label, raw, ...built, floorCost };
  } finally {
    await handle.db.dropDatabase().catch(() => undefined);
    await handle.close();
  }
}

/** The country reports of OWNERS[0], answered with the floor off and at 10, alternating: p50 ms of each. */
async function timeFloor(db, marks) {
  const { days, day } = SETTINGS;
  const month = { created__gte: day(0), created__lte: day(days - 1) };
  const scenarios = [
    ['30 days by country', { ...month, group_by: 'country' }],
    ['30 days by country, with uniques', { ...month, group_by: 'country', metrics: 'count,uniques' }],
    ['30 days, day series by country', { ...month, group_by: 'country', interval: 'day' }],
    ['30 days, filtered by FR, by url (top 20)', { ...month, country: 'FR', group_by: 'url', limit: 20 }],
  ];
  const source = new PlannedCountSource(db, {
    prefix: 'events',
    maxRangeDays: 400,
    concurrency: 4,
    queryTimeoutMs: 60_000,
    deadlineMs: 120_000,
    rollups: { marks, cells: new CellStore(db) },
  });
  const limits = {
    maxRangeDays: 400,
    maxBuckets: 10_000,
    deadlineMs: 120_000,
    maxGroups: 10_000,
    maxRankedGroups: 200_000,
  };
  const services = [0, 10].map((countryFloor) => new ReportService(source, { ...limits, countryFloor }));
  const caller = { id: 'bench', ownerIds: new Set([OWNERS[0]]) };
  const out = [];
  for (const [name, body] of scenarios) {
    const request = { owner_id: OWNERS[0], ...body };
    const rows = await Promise.all(services.map((s) => s.report(caller, request)));
    const times = [[], []];
    for (let run = 0; run < RUNS; run++) {
      for (const i of run % 2 === 0 ? [0, 1] : [1, 0]) {
        const started = performance.now();
        await services[i].report(caller, request);
        times[i].push(performance.now() - started);
      }
    }
    const folded = rows[1].filter((r) => r.country === 'below_floor' || r.below_floor).length;
    out.push({ name, rows: rows.map((r) => r.length), folded, p50: times.map((xs) => quantile(xs, 0.5)) });
    say(`floor cost: ${name}: ${out.at(-1).p50.map(fmt).join(' / ')} ms`);
  }
  return out;
}

function print(results) {
  const per = (b) => (b / EVENTS).toFixed(1);
  const pageBytes = (r) => Object.values(r.bytes).reduce((a, b) => a + b, 0);
  const withC = results[1];
  const shares = [...withC.raw.countries.entries()].sort((a, b) => b[1] - a[1]);
  console.log(
    `\n${EVENTS.toLocaleString('en')} events over ${SETTINGS.days} days (bench:report's mix, ${SETTINGS.urls.toLocaleString('en')} Zipf URLs); ` +
      `with countries: ${shares.length - 1} codes and unknown, ${shares
        .slice(0, 3)
        .map(([c, n]) => `${c} ${((100 * n) / EVENTS).toFixed(1)} %`)
        .join(
          ', ',
        )}, ..., the smallest ${shares.at(-1)[0]} ${((100 * shares.at(-1)[1]) / EVENTS).toFixed(2)} %; load average ${os.loadavg()[0].toFixed(1)}\n`,
  );
  console.log('| bytes per event | without countries | with countries | difference |');
  console.log('|---|---|---|---|');
  const row = (name, f) => {
    const [a, b] = results.map(f);
    console.log(`| ${name} | ${per(a)} | ${per(b)} | ${per(b - a)} |`);
  };
  row('rollup pages, binary columns (all families)', pageBytes);
  row('rollup pages as BSON (all families)', (r) => r.cellBytes);
  row('`g` (country) family, binary columns', (r) => r.byFamily.g ?? 0);
  row('raw event document (BSON)', (r) => r.raw.bytes);
  row('raw `country` field (BSON)', (r) => r.raw.countryBytes);
  for (const r of results)
    console.log(
      `\n${r.label}: ${r.cellDocs.toLocaleString('en')} pages; by family ${Object.entries(r.byFamily)
        .map(([f, b]) => `${f} ${per(b)}`)
        .join(', ')}; by column ${Object.entries(r.bytes)
        .map(([c, b]) => `${c} ${per(b)}`)
        .join(', ')} (B/event); caught up in ${r.seconds.toFixed(0)} s`,
    );
  console.log(`\nThe floor's cost per report (with countries; ${RUNS} runs each, alternating, p50 ms)\n`);
  console.log('| report | rows (floor off / 10) | rows folded or withheld | floor off | floor 10 | ratio |');
  console.log('|---|---|---|---|---|---|');
  for (const s of withC.floorCost)
    console.log(
      `| ${s.name} | ${s.rows.join(' / ')} | ${s.folded} | ${fmt(s.p50[0])} | ${fmt(s.p50[1])} | ${(s.p50[1] / s.p50[0]).toFixed(2)} |`,
    );
}

async function main() {
  const ownStore = !process.env.MONGO_URL;
  process.env.BENCH_HEAP ??= '4g';
  const gcLog = path.join(os.tmpdir(), `bench-country-bytes-gc-${process.pid}.log`);
  const mongoServer = ownStore ? await startBenchStandIn(gcLog) : undefined;
  const mongoUrl = process.env.MONGO_URL ?? mongoServer.url;
  say(
    `data store: ${ownStore ? `MongoDB stand-in at ${mongoUrl}` : 'MONGO_URL'}; ${EVENTS.toLocaleString('en')} events`,
  );
  try {
    const results = [];
    for (const withCountries of [false, true]) results.push(await measure(mongoUrl, withCountries));
    print(results);
  } finally {
    if (mongoServer) {
      await mongoServer.stop();
      say(gcPauses(gcLog));
    }
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
