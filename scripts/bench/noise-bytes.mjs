#!/usr/bin/env node
// `pnpm bench:noise-bytes`: what the web's URL noise costs the rollups. The same BENCH_EVENTS
// (1,000,000) events of bench:report over BENCH_DAYS (30) are loaded twice, each into a fresh
// database, as bench:report loads them (report-load.mjs: the consumer's BucketWriter, then the
// rollup builder until caught up): once clean (BENCH_URL_NOISE=0: one URL per page, no
// attribution) and once as browsers send them (report-web.mjs: campaign tags, click ids,
// fragments, slash and host-case variants, referrers; stored as ingest stores them). Countries
// are the same in both. Prints the rollup pages' bytes per event of each, by family, column and
// unit level, and their ratio (the goal: the noise costs at most 1.1 times the clean pages).
// Data store: MONGO_URL when set, else a MongoDB stand-in (BENCH_HEAP, 18g); each database is
// dropped before the next is loaded.
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { UNIT_LEVELS, catchUp, gcPauses, loadEvents, rawEventBytes, startBenchStandIn } from './report-load.mjs';
import { reportBenchSettings } from './report-scenarios.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const platform = require(path.join(root, 'packages/platform/dist'));

const SETTINGS = reportBenchSettings();
const SIZE = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const GOAL = 1.1;
// the families this build keeps, named by their dimensions
const FAMILIES = Object.fromEntries(
  require(path.join(root, 'services/events/dist/rollups/families')).FAMILIES.map((f) => [
    f.id,
    f.dimensions.length > 0 ? f.dimensions.join(', ') : 'totals',
  ]),
);
const say = (msg) => console.error(`[bench] ${msg}`);
const logger = platform.createLogger({ service: 'bench-noise-bytes', level: 'error' });
const load1 = () => os.loadavg()[0].toFixed(1);

/** Loads the events with or without noise, builds their rollups, and tallies what both hold. */
async function measure(mongoUrl, urlNoise) {
  const handle = await platform.connectMongo(mongoUrl, `bench_noise_${randomBytes(4).toString('hex')}`);
  try {
    const stats = { rawUrls: new Set(), clickIds: 0 };
    const urls = new Set();
    const attributions = new Set();
    let rawBytes = 0;
    const onBatch = (docs) => {
      for (const d of docs) {
        rawBytes += rawEventBytes(d);
        urls.add(d.url);
        attributions.add(
          [d.utm_source, d.utm_medium, d.utm_campaign, d.utm_content, d.utm_term, d.referrer].join('\u0000'),
        );
      }
    };
    const label = urlNoise ? 'noisy' : 'clean';
    say(`${label}: loading ${SIZE.toLocaleString('en')} events (load average ${load1()})`);
    const loaded = await loadEvents(handle.db, SIZE, { ...SETTINGS, urlNoise }, { logger, say, onBatch, stats });
    const built = await catchUp(handle.db, loaded.marks, { say });
    return {
      label,
      built,
      rawBytes,
      urls: urls.size,
      rawUrls: urlNoise ? stats.rawUrls.size : urls.size,
      clickIds: stats.clickIds,
      attributions: attributions.size,
      load: load1(),
    };
  } finally {
    await handle.db.dropDatabase().catch(() => undefined);
    await handle.close();
  }
}

function print(clean, noisy) {
  const perEvent = (b) => (b / SIZE).toFixed(1);
  const sum = (o) => Object.values(o).reduce((a, b) => a + b, 0);
  const rows = [];
  const row = (what, a, b, format = perEvent) =>
    rows.push(`| ${what} | ${format(a)} | ${format(b)} | ${a > 0 ? (b / a).toFixed(2) : b > 0 ? 'new' : '-'} |`);
  row('rollup pages, whole documents as BSON', clean.built.cellBytes, noisy.built.cellBytes);
  row('their binary columns', sum(clean.built.bytes), sum(noisy.built.bytes));
  for (const [f, name] of Object.entries(FAMILIES))
    row(`family ${f}: ${name}`, clean.built.byFamily[f] ?? 0, noisy.built.byFamily[f] ?? 0);
  for (const c of [...new Set([...Object.keys(clean.built.bytes), ...Object.keys(noisy.built.bytes)])])
    row(`column ${c}`, clean.built.bytes[c] ?? 0, noisy.built.bytes[c] ?? 0);
  // a family's columns where the noise changed anything (the same events give the same bytes elsewhere)
  const [a, b] = [clean.built.byFamilyColumn, noisy.built.byFamilyColumn];
  for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort())
    if ((a[key] ?? 0) !== (b[key] ?? 0)) row(`family ${key.replace(' ', ', column ')}`, a[key] ?? 0, b[key] ?? 0);
  UNIT_LEVELS.forEach((level, i) => {
    const [a, b] = [clean.built.byLevel[i], noisy.built.byLevel[i]];
    if (a.docs + b.docs > 0) row(`unit level ${level}`, a.bytes, b.bytes);
  });
  const count = (n) => n.toLocaleString('en');
  row('cell documents (pages), count', clean.built.cellDocs, noisy.built.cellDocs, count);
  row('raw events, BSON', clean.rawBytes, noisy.rawBytes);
  row('distinct page URLs as sent, count', clean.rawUrls, noisy.rawUrls, count);
  row('distinct page URLs as stored, count', clean.urls, noisy.urls, count);
  row('distinct attribution (utm_* and referrer) as stored, count', clean.attributions, noisy.attributions, count);
  row('click ids sent (none stored), count', clean.clickIds, noisy.clickIds, count);
  row('rollup catch-up, s', clean.built.seconds, noisy.built.seconds, (s) => s.toFixed(0));
  const ratio = noisy.built.cellBytes / clean.built.cellBytes;
  console.log(
    `\n${SIZE.toLocaleString('en')} events over ${SETTINGS.days} days, loaded clean (BENCH_URL_NOISE=0) and as browsers send them; load average ${clean.load} after the clean load, ${noisy.load} after the noisy one. Bytes per event unless a count:\n`,
  );
  console.log('| rollup bytes per event | clean | noisy | noisy / clean |');
  console.log('|---|---|---|---|');
  for (const r of rows) console.log(r);
  console.log(
    `\nThe noise costs ${ratio.toFixed(2)} times the clean pages: goal <= ${GOAL} ${ratio <= GOAL ? 'met' : 'NOT met'}.`,
  );
}

async function main() {
  const ownStore = !process.env.MONGO_URL;
  const gcLog = path.join(os.tmpdir(), `bench-noise-bytes-gc-${process.pid}.log`);
  const mongoServer = ownStore ? await startBenchStandIn(gcLog) : undefined;
  const mongoUrl = process.env.MONGO_URL ?? mongoServer.url;
  say(`data store: ${ownStore ? `MongoDB stand-in at ${mongoUrl}` : 'MONGO_URL'}; load average ${load1()}`);
  try {
    const clean = await measure(mongoUrl, false);
    const noisy = await measure(mongoUrl, true);
    print(clean, noisy);
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
