#!/usr/bin/env node
// `pnpm repro:publish-pause`: the rollup builder's publish sent to a MongoDB stand-in that is
// paused (SIGSTOP, as a long full GC pauses it) until the driver's heartbeat times out: the
// driver clears its pool and fails the publish, whatever the server does with it. The stand-in
// resumes at that moment (SIGCONT) and applies the update it had received. The builder must not
// take that for a failed build and drop cells the mark now points at: a report over the unit's
// span must still equal the raw-only answer. Exits 1 when it does not. REPRO_EVENTS (20000) is
// the number of events written over two days.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const dist = (p) => require(path.join(root, 'services/events/dist', p));
const testkit = require(path.join(root, 'packages/testkit/dist'));
const platform = require(path.join(root, 'packages/platform/dist'));
const { v7 } = require(require.resolve('uuid', { paths: [path.join(root, 'services/events')] }));
const { BucketWriter } = dist('consumer/bucket-writer');
const { RollupMarks } = dist('rollups/rollup-marks');
const { HeldMarks } = dist('rollups/held-marks');
const { CellStore } = dist('rollups/cell-store');
const { RollupBuilder } = dist('rollups/rollup-builder');
const { bucketName } = dist('storage/bucket-naming');
const { PlannedCountSource } = dist('reporting/read/planned-count-source');
const { ReportService } = dist('reporting/http/report-service');

const EVENTS = Number(process.env.REPRO_EVENTS ?? 20_000);
const DAY_MS = 86_400_000;
const FROM = Math.floor(Date.now() / DAY_MS) * DAY_MS - 4 * DAY_MS;
const OWNER = '4200000000001';
const say = (msg) => console.error(`[repro] ${msg}`);
const logger = platform.createLogger({ service: 'repro', level: 'error' });

function* batches() {
  let docs = [];
  for (let i = 0; i < EVENTS; i++) {
    const created = FROM + Math.floor((i / EVENTS) * 2 * DAY_MS);
    docs.push({
      _id: v7({ msecs: created }),
      owner_id: OWNER,
      name: i % 4 === 0 ? 'click' : 'impression',
      url: `https://news.example/article/${i % 97}`,
      content_id: '',
      device_type: 'desktop',
      bot: false,
      metadata: {},
      created: new Date(created),
      visitor: (i * 7919) % 5000,
    });
    const next = FROM + Math.floor(((i + 1) / EVENTS) * 2 * DAY_MS);
    if (docs.length === 500 || Math.floor(next / DAY_MS) !== Math.floor(created / DAY_MS)) {
      yield docs;
      docs = [];
    }
  }
  if (docs.length > 0) yield docs;
}

async function main() {
  const server = await testkit.startMongoStandIn({ heap: '1g' });
  // as a standalone MongoDB (docker-compose's mongo:7 before it became a replica set) has it: no
  // retryable writes, so the publish is not sent again after the pool was cleared
  const handle = await platform.connectMongo(`${server.url}/?retryWrites=false`, 'repro_publish_pause');
  try {
    const { db } = handle;
    const marks = new RollupMarks(db);
    await marks.init();
    const held = new HeldMarks(marks, { holdMs: 10_000, lingerMs: 1000 });
    const writer = new BucketWriter(db, logger, { w: 'majority', journal: true }, held);
    for (const docs of batches()) await writer.write(bucketName('events', docs[0].created), docs);
    await held.drain();
    const cells = new CellStore(db);
    const day = `4:${FROM}`;
    let paused = false;
    const builder = new RollupBuilder(db, marks, cells, {
      prefix: 'events',
      graceMs: 0,
      abandonMs: 600_000,
      batchUnits: 100_000,
      rawRetentionDays: 400,
      failureBackoff: { baseMs: 0, maxMs: 0 },
      hooks: {
        // the day's cells are written; its publish goes out next, to a server that stops answering
        afterCells: (unit) => {
          if (unit !== day || paused) return;
          paused = true;
          say(`pausing the stand-in (SIGSTOP) just before ${unit} is published`);
          server.process.kill('SIGSTOP');
          const started = Date.now();
          // resumed once the driver has failed the operations in flight, well within its server selection timeout
          handle.client.once('connectionPoolCleared', () =>
            setTimeout(() => {
              server.process.kill('SIGCONT');
              say(
                `the driver cleared its pool after ${Date.now() - started - 1000} ms; stand-in resumed (SIGCONT) 1 s later`,
              );
            }, 1000),
          );
        },
      },
    });
    for (let pass = 1; pass <= 4; pass++) {
      const result = await builder.runOnce();
      say(
        `builder pass ${pass}: built ${JSON.stringify(result.built)}, failed ${JSON.stringify(result.failed.map((f) => `${f.unit}: ${f.error}`))}`,
      );
    }
    const mark = await marks.collection.findOne({ _id: day });
    const manifests = mark?.b ? await db.collection('rollup_cells_manifests').countDocuments({ g: mark.b.g }) : 0;
    const cellDocs = mark?.b ? await cells.collection.countDocuments({ g: mark.b.g }) : 0;
    say(
      `${day}: ${JSON.stringify({ s: mark?.s, f: mark?.f, dirty: mark?.dirty, b: mark?.b })}, ${manifests} manifest and ${cellDocs} cell documents`,
    );

    const limits = { maxRangeDays: 400, deadlineMs: 60_000, maxGroups: 100_000, maxRankedGroups: 1_000_000 };
    const options = { prefix: 'events', maxRangeDays: 400, concurrency: 4, queryTimeoutMs: 30_000, deadlineMs: 60_000 };
    const rolled = new ReportService(new PlannedCountSource(db, { ...options, rollups: { marks, cells } }), limits);
    const raw = new ReportService(new PlannedCountSource(db, options), limits);
    const caller = { id: 'repro', ownerIds: new Set([OWNER]) };
    const body = {
      owner_id: OWNER,
      created__gte: new Date(FROM).toISOString(),
      created__lte: new Date(FROM + 2 * DAY_MS - 1).toISOString(),
    };
    const total = (rows) => rows.reduce((n, r) => n + r.value, 0);
    const [a, b] = [total(await rolled.report(caller, body)), total(await raw.report(caller, body))];
    const short = ((b - a) / b) * 100;
    say(`rollups ${a} vs raw ${b} (${short.toFixed(1)} % short)`);
    if (a !== b) throw new Error('the rollup-planned answer differs from the raw-only answer');
    say('the answer equals the raw-only answer');
  } finally {
    await handle.close().catch(() => undefined);
    await server.stop();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
