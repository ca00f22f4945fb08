#!/usr/bin/env node
// `pnpm bench:page-bytes`: where the rollup pages' bytes go. For each of BENCH_SIZES (1,000,000)
// the events of bench:report (report-data.mjs, the web's URL noise unless BENCH_URL_NOISE=0) are
// loaded into a fresh database and the rollup builder runs until caught up, as bench:report does
// (report-load.mjs), without timing any report. Prints the bytes per event of the pages' binary
// columns by unit level x family x column, and what each level adds up to. BENCH_JSON=<file>
// also writes the raw tallies. Data store: MONGO_URL when set, else a MongoDB stand-in
// (BENCH_HEAP, 18g); each size's database is dropped before the next.
import os from 'node:os';
import { writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { UNIT_LEVELS, catchUp, gcPauses, loadEvents, startBenchStandIn } from './report-load.mjs';
import { reportBenchSettings } from './report-scenarios.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const platform = require(path.join(root, 'packages/platform/dist'));
const FAMILIES = require(path.join(root, 'services/events/dist/rollups/families')).FAMILIES.map((f) => f.id);

const SETTINGS = reportBenchSettings({ BENCH_SIZES: '1000000', ...process.env });
const say = (msg) => console.error(`[bench] ${msg}`);
const logger = platform.createLogger({ service: 'bench-page-bytes', level: 'error' });
const load1 = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ');

async function measure(mongoUrl, size) {
  const handle = await platform.connectMongo(mongoUrl, `bench_page_bytes_${randomBytes(4).toString('hex')}`);
  try {
    say(`${size.toLocaleString('en')}: loading (load average ${load1()})`);
    const loaded = await loadEvents(handle.db, size, SETTINGS, { logger, say });
    const built = await catchUp(handle.db, loaded.marks, { say });
    return { size, built, load: load1() };
  } finally {
    await handle.db.dropDatabase().catch(() => undefined);
    await handle.close();
  }
}

function print({ size, built, load }) {
  const per = (b) => (b / size).toFixed(1);
  const cells = built.byLevelFamilyColumn;
  const columns = [...new Set(Object.keys(cells).map((k) => k.split(' ')[2]))].sort();
  const levels = UNIT_LEVELS.filter((l) => Object.keys(cells).some((k) => k.startsWith(`${l} `)));
  const sum = (match) =>
    Object.entries(cells)
      .filter(([k]) => match(...k.split(' ')))
      .reduce((a, [, b]) => a + b, 0);
  const total = sum(() => true);
  console.log(
    `\n${size.toLocaleString('en')} events over ${SETTINGS.days} days (URL noise ${SETTINGS.urlNoise ? 'on' : 'off'}); catch-up ${built.seconds.toFixed(0)} s; load average ${load}. Binary columns, bytes per event: ${per(total)} (whole pages as BSON ${per(built.cellBytes)}).\n`,
  );
  console.log(`| level | family | ${columns.join(' | ')} | all |`);
  console.log(`|---|---|${columns.map(() => '---|').join('')}---|`);
  for (const level of levels) {
    for (const family of [...FAMILIES, 'all']) {
      const of = (c) => sum((l, f, col) => l === level && (family === 'all' || f === family) && (!c || col === c));
      if (of() === 0) continue;
      const row = columns.map((c) => per(of(c)));
      console.log(
        `| ${level} | ${family} | ${row.join(' | ')} | ${family === 'all' ? `**${per(of())}**` : per(of())} |`,
      );
    }
  }
  for (const family of [...FAMILIES, 'all']) {
    const of = (c) => sum((_, f, col) => (family === 'all' || f === family) && (!c || col === c));
    console.log(`| all | ${family} | ${columns.map((c) => per(of(c))).join(' | ')} | **${per(of())}** |`);
  }
  // what dropping one level would save (its own bytes; the levels above merge from the one below)
  console.log(
    `\nshare of the bytes per level: ${levels.map((l) => `${l} ${((100 * sum((x) => x === l)) / total).toFixed(1)} %`).join(', ')}`,
  );
}

async function main() {
  const ownStore = !process.env.MONGO_URL;
  const gcLog = path.join(os.tmpdir(), `bench-page-bytes-gc-${process.pid}.log`);
  const mongoServer = ownStore ? await startBenchStandIn(gcLog) : undefined;
  const mongoUrl = process.env.MONGO_URL ?? mongoServer.url;
  say(`data store: ${ownStore ? `MongoDB stand-in at ${mongoUrl}` : 'MONGO_URL'}; load average ${load1()}`);
  const results = [];
  try {
    for (const size of SETTINGS.sizes) {
      const result = await measure(mongoUrl, size);
      results.push({ size, byLevelFamilyColumn: result.built.byLevelFamilyColumn, seconds: result.built.seconds });
      print(result);
    }
  } finally {
    if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, JSON.stringify(results, null, 1));
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
