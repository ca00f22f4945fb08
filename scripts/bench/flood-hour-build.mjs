// The child process of bench:flood-hour (flood-hour.mjs starts it with a small heap): runs the real
// rollup builder (services/events/dist RollupBuilder) over FLOOD_MONGO_URL / FLOOD_DB until a pass
// builds nothing, and sends the parent what it saw (IPC): per pass the units built, the sampled
// peak heap and RSS, and the process's maximum RSS. Each unit build is announced on stdout
// (`@@unit <level> <start|end>`) between the lines --trace-gc prints, so the parent can tell which
// build a collection happened in.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const dist = (p) => require(path.join(root, 'services/events/dist', p));
const platform = require(path.join(root, 'packages/platform/dist'));
const { RollupMarks } = dist('rollups/rollup-marks');
const { CellStore } = dist('rollups/cell-store');
const { RollupBuilder } = dist('rollups/rollup-builder');
const { loadEventsConfig } = dist('config');

const cap = process.env.FLOOD_CAP ? Number(process.env.FLOOD_CAP) : loadEventsConfig({}).ROLLUP_MAX_CELLS_PER_OWNER;
let peakHeap = 0;
let peakRss = 0;
const sample = () => {
  const m = process.memoryUsage();
  peakHeap = Math.max(peakHeap, m.heapUsed);
  peakRss = Math.max(peakRss, m.rss);
};
// between the builder's awaits only: the parent's --trace-gc reading also sees synchronous peaks
setInterval(sample, 5).unref();

const handle = await platform.connectMongo(process.env.FLOOD_MONGO_URL, process.env.FLOOD_DB);
const marks = new RollupMarks(handle.db);
const builder = new RollupBuilder(handle.db, marks, new CellStore(handle.db), {
  prefix: 'events',
  graceMs: 0,
  abandonMs: 600_000,
  batchUnits: 100_000,
  rawRetentionDays: 400,
  maxCellsPerOwner: cap,
});
// each unit build announced (the builder's own unit builders, wrapped: nothing else changes)
const units = builder.builders;
for (const [method, levelOf] of [
  ['buildHours', () => 0],
  ['buildMerged', ([mark]) => mark.level],
]) {
  const original = units[method].bind(units);
  units[method] = async (...args) => {
    const level = levelOf(args);
    console.log(`@@unit ${level} start`);
    try {
      return await original(...args);
    } finally {
      sample();
      console.log(`@@unit ${level} end`);
    }
  };
}
const passes = [];
const started = Date.now();
for (let pass = 1; pass <= 20; pass++) {
  const result = await builder.runOnce();
  sample();
  passes.push({
    built: result.built,
    failed: result.failed.map((f) => `${f.unit}: ${f.error}`),
    heap: peakHeap,
    rss: peakRss,
  });
  if (result.built.every((n) => n === 0)) break;
}
await handle.close();
process.send(
  {
    cap,
    seconds: (Date.now() - started) / 1000,
    passes,
    peakHeap,
    peakRss,
    maxRss: process.resourceUsage().maxRSS * 1024,
    heapLimit: v8.getHeapStatistics().heap_size_limit,
  },
  () => process.exit(0),
);
