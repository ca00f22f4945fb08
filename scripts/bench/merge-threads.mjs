#!/usr/bin/env node
// `pnpm bench:merge-threads`: would a report's merge split across cores answer sooner? The
// experiment behind the choice to keep one report's merge on one thread. The 30-day reports whose
// time is the merge of many cell entries are answered from decoded, cached pages (cell-pages.mjs:
// the builder's own pages of bench:report's events, URLs as browsers send them) by:
//   - one thread: the report's read and rows in this thread, then its JSON (as the reporting role does);
//   - one worker: the same in a worker thread, its answer sent back as JSON text (the cost of a thread hop);
//   - K workers by group: each worker (its own decoded pages, as each would hold its own cache) merges
//     only the groups whose strings hash to it, makes their rows and sends them back; this thread
//     puts the rows in the answer's order and writes the JSON (the answer equals the one thread's:
//     checked before timing);
//   - K workers, text joined: the same, each part sent as JSON text and joined as it comes (rows
//     out of the answer's order: not an answer, the floor of any combine).
// A group's states never cross threads: a group is merged whole in one worker. Splitting by unit
// instead would merge every group's parts twice (once per worker, then the partial states here).
// BENCH_SIZE (1000000), BENCH_THREADS (K, 2), BENCH_RUNS (31), BENCH_REPORTS (first words of the
// report names). Everything is timed in this process, alternating run by run.
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import os from 'node:os';
import { p50Alternating } from './alternating-runs.mjs';
import { eventBatches, OWNERS } from './report-data.mjs';
import * as pagesOf from './cell-pages.mjs';
import { urlNoiseSetting } from './report-web.mjs';

const SIZE = Number(process.env.BENCH_SIZE ?? 1_000_000);
const THREADS = Number(process.env.BENCH_THREADS ?? 2);
const RUNS = Number(process.env.BENCH_RUNS ?? 31);
const DAYS = 30;
const FIRST_DAY = Date.UTC(2026, 0, 1);
const day = (n) => new Date(FIRST_DAY + n * 86_400_000).toISOString().slice(0, 10);
const MONTH = { owner_id: OWNERS[0], created__gte: `${day(0)} 00:00:00`, created__lte: `${day(DAYS - 1)} 23:59:59` };
const REPORTS = [
  ['uniques, group_by url', 'p', { ...MONTH, group_by: 'url', metrics: 'count,uniques' }],
  ['group_by content_id,url', 'p', { ...MONTH, group_by: 'content_id,url' }],
  ['group_by url + metadata', 'p', { ...MONTH, group_by: 'url', metadata: 'campaign,variant' }],
  [
    'p90 engaged time, group_by content_id',
    'p',
    { ...MONTH, name: 'view', group_by: 'content_id', metrics: 'count,engaged_ms_p90' },
  ],
  ['uniques, group_by utm_campaign', 'c', { ...MONTH, group_by: 'utm_campaign', metrics: 'count,uniques' }],
].filter(
  ([name]) => !process.env.BENCH_REPORTS || process.env.BENCH_REPORTS.split(',').some((w) => name.startsWith(w)),
);
const say = (s) => process.stderr.write(`[merge-threads] ${s}\n`);

/** FNV-1a of a string: which worker a group's strings send it to, the same in every thread. */
function hashOf(s) {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** Each report's `answer(part, parts)`: its rows, of the groups of `part` only when `parts` > 1. */
async function reportsOverPages() {
  const units = pagesOf.rangeUnits(FIRST_DAY, FIRST_DAY + DAYS * 86_400_000);
  const families = new Map(
    [...new Set(REPORTS.map((r) => r[1]))].map((f) => [f, pagesOf.ownerPages(OWNERS[0], f, units)]),
  );
  const settings = { total: SIZE, days: DAYS, firstDay: FIRST_DAY, urls: 2000, batch: 500, noise: urlNoiseSetting() };
  for (const batch of eventBatches(settings, new Map()))
    for (const e of batch) if (e.owner_id === OWNERS[0] && !e.bot) for (const b of families.values()) b.add(e);
  const pages = new Map([...families].map(([f, b]) => [f, b.pages()]));
  return REPORTS.map(([, family, body]) => pagesOf.cellReport(body, pages.get(family), units));
}

/**
 * A report's groups, keeping only those whose name and group values hash to `part` of `parts`:
 * every other entry is met (its keys read) and passed over, as a worker owning part of the groups would.
 */
function partOfGroups(ReportGroups, part, parts) {
  return class PartGroups extends ReportGroups {
    hashes = [];
    foreign = false;
    elsewhere = -1;
    intern(value) {
      const id = super.intern(value);
      this.hashes[id] ??= hashOf(value);
      return id;
    }
    key(time, nameId, ids) {
      let h = this.hashes[nameId];
      for (const id of ids) h = (h + this.hashes[id]) >>> 0;
      this.foreign = h % parts !== part;
      return super.key(time, nameId, ids);
    }
    find(key) {
      return this.foreign ? this.elsewhere : super.find(key);
    }
    merge(slot, i, state) {
      if (slot !== this.elsewhere) super.merge(slot, i, state);
    }
  };
}

/** The answer's order (report-rows.ts without a rank): name, then the group fields in request order. */
function rowOrder(fields) {
  return (a, b) => {
    if (a.name !== b.name) return a.name < b.name ? -1 : 1;
    for (const f of fields) if (a[f] !== b[f]) return a[f] < b[f] ? -1 : 1;
    return 0;
  };
}

async function worker() {
  const { part, parts, dist } = workerData;
  const reports = await reportsOverPages();
  const { ReportGroups } = await import(`${dist}/reporting/read/report-groups.js`);
  const groups = partOfGroups(ReportGroups, part, parts);
  for (const r of reports) for (let w = 0; w < 3; w++) await r.run({ cached: true, groups });
  parentPort.postMessage('ready');
  parentPort.on('message', async ({ i, as }) => {
    const rows = (await reports[i].run({ cached: true, groups: parts > 1 ? groups : undefined })).rows;
    parentPort.postMessage(
      as === 'rows' ? rows : as === 'parts' ? rows.map((r) => JSON.stringify(r)).join(',') : JSON.stringify(rows),
    );
  });
}

function startWorker(part, parts) {
  const w = new Worker(new URL(import.meta.url), {
    workerData: { part, parts, dist: pagesOf.DIST },
    // the reporting process's young generation (--max-semi-space-size=64: three semi-spaces)
    resourceLimits: { maxYoungGenerationSizeMb: 192 },
  });
  const ready = new Promise((resolve, reject) => {
    w.once('message', resolve);
    w.once('error', reject);
  });
  const ask = (i, as) =>
    new Promise((resolve) => {
      w.once('message', resolve);
      w.postMessage({ i, as });
    });
  return { ready, ask, stop: () => w.terminate() };
}

async function main() {
  say(`${SIZE.toLocaleString('en')} events, ${THREADS} workers by group; load average ${os.loadavg()[0].toFixed(1)}`);
  const one = startWorker(0, 1);
  const many = Array.from({ length: THREADS }, (_, p) => startWorker(p, THREADS));
  const reports = await reportsOverPages();
  await Promise.all([one.ready, ...many.map((w) => w.ready)]);
  console.log(
    `| report (${SIZE / 1e6}M, 30 days, cached pages) | rows | one thread, ms | one worker | ${THREADS} workers by group | ${THREADS} workers, text joined (floor) | one worker / one thread | ${THREADS} workers / one thread |`,
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const [i, [name, , body]] of REPORTS.entries()) {
    const fields = body.group_by.split(',');
    const inOrder = (parts) => JSON.stringify(parts.flat().sort(rowOrder(fields)));
    const alone = JSON.stringify((await reports[i].run({ cached: true })).rows);
    const split = inOrder(await Promise.all(many.map((w) => w.ask(i, 'rows'))));
    if (split !== alone) throw new Error(`${name}: the workers by group answer differently`);
    const [a, b, c, d] = await p50Alternating(
      [
        async () => JSON.stringify((await reports[i].run({ cached: true })).rows),
        () => one.ask(i, 'json'),
        async () => inOrder(await Promise.all(many.map((w) => w.ask(i, 'rows')))),
        async () => `[${(await Promise.all(many.map((w) => w.ask(i, 'parts')))).join(',')}]`,
      ],
      RUNS,
    );
    const f = (x) => x.toFixed(2);
    console.log(
      `| ${name} | ${JSON.parse(alone).length} | ${f(a)} | ${f(b)} | ${f(c)} | ${f(d)} | ${(b / a).toFixed(2)} | ${(c / a).toFixed(2)} |`,
    );
  }
  await Promise.all([one, ...many].map((w) => w.stop()));
}

if (isMainThread)
  main().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
else await worker();
