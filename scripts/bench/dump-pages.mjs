#!/usr/bin/env node
// `BENCH_PAGES=<file> pnpm bench:dump-pages`: loads the events of bench:report (report-data.mjs)
// and catches the rollup builder up as bench:page-bytes does (report-load.mjs), writing every page
// the builder writes to <file>, one BSON document after another, so another build's codecs can be
// measured on the same pages without loading and building again (bench:page-format-beside).
// BENCH_SIZES (1000000: the first size only), BENCH_HEAP (18g) as bench:page-bytes.
import os from 'node:os';
import { openSync, writeSync, closeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { catchUp, loadEvents, startBenchStandIn } from './report-load.mjs';
import { reportBenchSettings } from './report-scenarios.mjs';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const platform = require(path.join(root, 'packages/platform/dist'));
const { CellStore } = require(path.join(root, 'services/events/dist/rollups/cell-store'));
const { BSON } = require(require.resolve('mongodb', { paths: [path.join(root, 'services/events')] }));
const SETTINGS = reportBenchSettings({ BENCH_SIZES: '1000000', ...process.env });
const say = (m) => console.error(`[bench] ${m}`);
const logger = platform.createLogger({ service: 'bench-dump-pages', level: 'error' });
const fd = openSync(process.env.BENCH_PAGES, 'w');
const wp = CellStore.prototype.writePages;
CellStore.prototype.writePages = function (g, parts, docs) {
  for (const d of docs) writeSync(fd, BSON.serialize(d));
  return wp.call(this, g, parts, docs);
};
const s = await startBenchStandIn(path.join(os.tmpdir(), `bench-dump-pages-gc-${process.pid}.log`));
try {
  const size = SETTINGS.sizes[0];
  const handle = await platform.connectMongo(s.url, `bench_dump_pages_${randomBytes(4).toString('hex')}`);
  const loaded = await loadEvents(handle.db, size, SETTINGS, { logger, say });
  await catchUp(handle.db, loaded.marks, { say });
  await handle.db.dropDatabase().catch(() => undefined);
  await handle.close();
} finally {
  closeSync(fd);
  await s.stop();
}
process.exit(0);
