#!/usr/bin/env node
// `pnpm bench:peer`: our reports side by side with ClickHouse on the same events, in one run. For
// each of BENCH_SIZES (default 1,000,000 and 5,000,000 events over BENCH_DAYS, 30), the events of
// bench:report (report-data.mjs, same seed) are loaded as bench:report loads them (report-load.mjs:
// the consumer's BucketWriter into a fresh database of the MongoDB stand-in or MONGO_URL, then the
// rollup builder until caught up) and, from the same generator pass, written as TSV and loaded into
// a MergeTree table of ClickHouse running in process (chDB, peer/clickhouse.mjs). Then every
// bench:report scenario is asked of both: ours over HTTP (the built reporting feature on loopback,
// as bench:report times it, served by a process of its own as the reporting role is deployed),
// ClickHouse as the SQL a ClickHouse user writes (peer/sql.mjs), timed
// inside the Python process per query (no HTTP on that side; its time ends with the answer
// formatted as JSON). Ours is timed to the answer's last byte received by this process (so it
// includes the HTTP round trip and the transfer, which ClickHouse's time does not), and to the
// client's JSON.parse of it as well (work neither engine's time holds; printed beside it). Each answer is checked first:
// ClickHouse's must equal ours where ours is exact; where ours is a sketch its error is printed.
// BENCH_RUNS (20) runs per scenario, the two systems alternating run by run (A B, then B A).
// Progress goes to stderr, the ready-to-paste tables to stdout.
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { OWNERS } from './report-data.mjs';
import { BENCH_ZONES, catchUp, gcPauses, loadEvents, rawEventBytes, startBenchStandIn } from './report-load.mjs';
import { reportBenchSettings, reportScenarios } from './report-scenarios.mjs';
import { ownerReports, serveReportingApart } from './reporting-app.mjs';
import { EVENTS_TABLE, TSV_STRUCTURE, ensureChdb, startClickHouse, tsvRows } from './peer/clickhouse.mjs';
import { asksPercentile, clickhouseSql, compareAnswers, percentileDefinitionGap } from './peer/sql.mjs';
import { printResults } from './peer/print.mjs';
import { startAnswerFloor } from './peer/answer-floor.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const platform = require(path.join(root, 'packages/platform/dist'));

const SETTINGS = reportBenchSettings();
const ADMIN_TOKEN = `bench-${randomBytes(32).toString('hex')}`;
const say = (msg) => console.error(`[bench] ${msg}`);
const logger = platform.createLogger({ service: 'bench-peer', level: 'error' });
const load1 = () => os.loadavg()[0];

/** Loads `size` events into both systems; what each took, in seconds and bytes. */
async function loadBoth(db, ch, size, dataDir, mongoUrl) {
  const tsvFile = path.join(dataDir, `events-${size}.tsv`);
  const tsv = createWriteStream(tsvFile);
  let rawBytes = 0;
  const onBatch = (docs) => {
    for (const d of docs) rawBytes += rawEventBytes(d);
    return tsv.write(tsvRows(docs)) ? undefined : once(tsv, 'drain');
  };
  const loaded = await loadEvents(db, size, SETTINGS, { logger, say, onBatch });
  await new Promise((resolve) => tsv.end(resolve));
  const built = await catchUp(db, loaded.marks, { say, mongoUrl });

  await ch.query('DROP TABLE IF EXISTS events SYNC');
  await ch.query(EVENTS_TABLE);
  const file = `'${tsvFile.replace(/[\\']/g, (c) => `\\${c}`)}'`;
  const insert = await ch.query(
    `INSERT INTO events SELECT * FROM file(${file}, 'TSV', '${TSV_STRUCTURE.replace(/'/g, "\\'")}')`,
  );
  const parts = (await rows(ch, "SELECT count() AS n FROM system.parts WHERE table = 'events' AND active"))[0].n;
  // one part per partition, as background merges leave a table that stopped receiving inserts
  const optimize = await ch.query('OPTIMIZE TABLE events FINAL');
  rmSync(tsvFile);
  const [table] = await rows(
    ch,
    "SELECT sum(rows) AS events, sum(bytes_on_disk) AS on_disk, count() AS parts FROM system.parts WHERE database = currentDatabase() AND table = 'events' AND active",
  );
  if (Number(table.events) !== size) throw new Error(`ClickHouse holds ${table.events} events, not ${size}`);
  const columns = await rows(
    ch,
    "SELECT column, sum(column_data_compressed_bytes) AS compressed FROM system.parts_columns WHERE database = currentDatabase() AND table = 'events' AND active GROUP BY column ORDER BY compressed DESC",
  );
  say(
    `ClickHouse: inserted in ${(insert.ms / 1000).toFixed(1)} s (${parts} parts), merged to ${table.parts} in ${(optimize.ms / 1000).toFixed(1)} s; ${(table.on_disk / size).toFixed(1)} B/event on disk`,
  );
  return {
    ...loaded,
    built,
    rawBytes,
    clickhouse: {
      insertSeconds: insert.ms / 1000,
      optimizeSeconds: optimize.ms / 1000,
      bytes: Number(table.on_disk),
      columns: columns.map((c) => ({ column: c.column, bytes: Number(c.compressed) })),
    },
  };
}

const gaps = (byMetric) =>
  Object.entries(byMetric)
    .map(([m, e]) => `${m} ${(e * 100).toFixed(2)} %`)
    .join(', ');

async function rows(ch, sql) {
  return JSON.parse((await ch.query(sql, { result: true })).result).data;
}

/** Each scenario once on both systems: the answers compared, and ClickHouse's rows read. */
async function check(list, report, ch, { expected, visitors }) {
  const failures = [];
  for (const s of list) {
    s.sql = clickhouseSql(OWNERS[0], s.body);
    const ours = await report(s.body);
    const answer = await ch.query(s.sql, { result: true });
    const { data, statistics } = JSON.parse(answer.result);
    // what the query scanned (after the sort key and partitions pruned granules)
    s.rowsRead = statistics.rows_read;
    // a percentile is checked against its exact nearest-rank value, the report's definition
    const exactRows = asksPercentile(s.body)
      ? JSON.parse((await ch.query(clickhouseSql(OWNERS[0], s.body, { nearestRank: true }), { result: true })).result)
          .data
      : data;
    s.check = compareAnswers(s.body, ours, exactRows);
    if (exactRows !== data) s.check.definitionGap = percentileDefinitionGap(s.body, data, exactRows);
    const errors = gaps(s.check.errors);
    say(
      `${s.name}: ${s.check.rows} rows; ${s.check.mismatches.length === 0 ? 'exact parts equal' : `${s.check.mismatches.length} MISMATCHES (${s.check.mismatches.slice(0, 3).join('; ')})`}${errors ? `; ours vs exact, largest relative error: ${errors}` : ''}${s.body.metadata ? `; metadata values differing: ${s.check.metadataDiffers}` : ''}${s.check.edgeDiffers ? `; groups only one side keeps in its top ${s.body.limit} (a near tie of sketched uniques): ${s.check.edgeDiffers}` : ''}${s.check.definitionGap ? `; quantileExact against the nearest rank, largest relative difference: ${gaps(s.check.definitionGap)}` : ''}\n  SQL: ${s.sql}`,
    );
    if (s.check.mismatches.length > 0) failures.push(s.name);
    if (s.key === 'uniques-name') {
      // ClickHouse against the loaded events themselves: it holds exactly what ours holds
      const truth = data.every(
        (r) => Number(r.value) === expected.get(r.name) && Number(r.uniques) === visitors.get(r.name).size,
      );
      if (!truth || data.length !== expected.size) failures.push('ClickHouse against the loaded events');
    }
  }
  if (failures.length > 0) throw new Error(`answers differ: ${failures.join(', ')}`);
}

async function measure(size, mongoUrl, ch, dataDir) {
  const handle = await platform.connectMongo(mongoUrl, `bench_peer_${randomBytes(4).toString('hex')}`);
  let app;
  try {
    const loaded = await loadBoth(handle.db, ch, size, dataDir, mongoUrl);
    // the SQL asks the question without the country privacy floor (small countries folded into
    // `below_floor`), so ours is asked it without the floor too: same question, same rows; what
    // the floor costs a report is measured by bench:country-bytes
    // ours as deployed: the reporting role in a process of its own with the manifests' Node
    // flags, as ClickHouse answers in a process of its own; this process only loads, asks and
    // parses the answers
    app = await serveReportingApart({
      mongoUrl,
      adminToken: ADMIN_TOKEN,
      dbName: handle.db.databaseName,
      name: 'bench-peer',
      // the zones whose days the load marked and built (BENCH_ROLLUP_ZONES), as the rollup and
      // reporting roles share ROLLUP_ZONES
      env: { REPORT_COUNTRY_FLOOR: '0', ROLLUP_ZONES: BENCH_ZONES.join(',') },
    });
    const report = await ownerReports(app, ADMIN_TOKEN, OWNERS[0]);
    // the scorecard has no SQL twin: it is a campaign preset, not a report
    const list = reportScenarios(SETTINGS).filter((s) => !s.route);
    const loadBefore = load1();
    await check(list, report, ch, loaded);

    // ours timed to the answer's last byte received (ClickHouse's time ends with its answer
    // formatted as JSON, parsed by no one), and to the client's parse of it as well
    const ours = list.map(() => []);
    const oursParsed = list.map(() => []);
    const theirs = list.map(() => []);
    // each scenario's answer served as bytes by a bare server: the floor of any report path over HTTP
    const answers = [];
    for (const s of list) answers.push(JSON.stringify(await report(s.body)));
    const bare = await startAnswerFloor(answers);
    const floors = list.map(() => []);
    const floorsParsed = list.map(() => []);
    const timeFloor = async (i) => {
      const { receivedMs, parsedMs } = await bare.ask(i, list[i].body);
      floors[i].push(receivedMs);
      floorsParsed[i].push(parsedMs);
    };
    const timeOurs = async (i) => {
      const { receivedMs, parsedMs } = await report.timed(list[i].body);
      ours[i].push(receivedMs);
      oursParsed[i].push(parsedMs);
    };
    const timeTheirs = async (i) => theirs[i].push((await ch.query(list[i].sql)).ms);
    // the floors: an HTTP round trip that does nothing (a 404 of the same app), a query that reads nothing
    const floor = { ours: [], theirs: [] };
    for (let run = 0; run < SETTINGS.runs; run++) {
      say(`${size.toLocaleString('en')}: run ${run + 1} of ${SETTINGS.runs} (load average ${load1().toFixed(1)})`);
      for (let i = 0; i < list.length; i++) {
        if (run % 2 === 0) await timeOurs(i);
        await timeTheirs(i);
        await timeFloor(i);
        if (run % 2 === 1) await timeOurs(i);
      }
      const t0 = process.hrtime.bigint();
      await (await fetch(`${app.base}/nothing-here`)).arrayBuffer();
      floor.ours.push(Number(process.hrtime.bigint() - t0) / 1e6);
      floor.theirs.push((await ch.query('SELECT 1')).ms);
    }
    await bare.close();
    const peak = app.peakMiB();
    if (peak !== undefined)
      say(`${size.toLocaleString('en')}: our reporting process peaked at ${peak.toFixed(0)} MiB resident`);
    const owned = [...loaded.expected.values()].reduce((a, b) => a + b, 0);
    const answerBytes = answers.map((a) => Buffer.byteLength(a));
    return {
      size,
      owned,
      loaded,
      list,
      ours,
      oursParsed,
      theirs,
      floors,
      floorsParsed,
      answerBytes,
      floor,
      load: [loadBefore, load1()],
    };
  } finally {
    app?.stop();
    await handle.db.dropDatabase().catch(() => undefined);
    await handle.close();
  }
}

async function main() {
  const python = ensureChdb(say);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-peer-'));
  const ch = startClickHouse(python, dataDir);
  const ownStore = !process.env.MONGO_URL;
  // the stand-in's garbage collector pauses logged: they land in our side's times (report-load.mjs)
  const gcLog = path.join(os.tmpdir(), `bench-peer-gc-${process.pid}.log`);
  let mongoServer;
  try {
    const [engine] = await rows(ch, "SELECT version() AS version, getSetting('max_threads') AS threads");
    mongoServer = ownStore ? await startBenchStandIn(gcLog) : undefined;
    const mongoUrl = process.env.MONGO_URL ?? mongoServer.url;
    say(
      `ours: ${ownStore ? `MongoDB stand-in at ${mongoUrl}` : 'MONGO_URL'}; ClickHouse ${engine.version} (chDB, max_threads ${engine.threads}) in ${dataDir}; sizes ${SETTINGS.sizes.join(', ')}; load average ${os
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')}`,
    );
    const results = [];
    for (const size of SETTINGS.sizes) {
      results.push(await measure(size, mongoUrl, ch, dataDir));
      // each size's table as soon as it is measured: a failure at a larger size keeps the smaller
      printResults(results.slice(-1), { settings: SETTINGS, engine, summary: false });
    }
    printResults(results, { settings: SETTINGS, engine, summary: true });
  } finally {
    await ch.stop();
    if (mongoServer) {
      await mongoServer.stop();
      say(gcPauses(gcLog));
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
