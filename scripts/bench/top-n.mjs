#!/usr/bin/env node
// `pnpm bench:top-n`: the answer's ranking of many groups (toReportRows, no store): 200,000 url
// groups (BENCH_GROUPS) ranked by value, with a limit of 100,000 in both orders (counts rising with
// the url, so in descending order every group beats the last one kept: the worst order for a top-N
// kept as a list), a top 10, and every group ranked without a limit. Each case BENCH_RUNS (5) times,
// the median printed; BENCH_COMPARE_DIST=<another checkout's services/events/dist> times that build
// too, alternating.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const GROUPS = Number(process.env.BENCH_GROUPS ?? 200_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const CASES = [
  [100_000, 'asc'],
  [100_000, 'desc'],
  [10, 'desc'],
  [undefined, 'desc'],
];

function build(dist) {
  const req = (p) => require(path.join(dist, p));
  const { parseReportRequest } = req('reporting/request/parse-report-request');
  const { readPlanOf } = req('reporting/read/read-plan');
  const { reportGroup } = req('reporting/read/report-group');
  const { toReportRows } = req('reporting/read/report-rows');
  return (limit, order) => {
    const body = { owner_id: '1', group_by: 'url', order_by: 'value', order, ...(limit ? { limit } : {}) };
    const plan = readPlanOf(parseReportRequest(body, { maxRangeDays: 31 }));
    const groups = Array.from({ length: GROUPS }, (_, i) =>
      reportGroup('view', [`https://example.com/p/${i}?utm_source=newsletter&gclid=${i * 7919}`], { count: i }),
    );
    const t0 = performance.now();
    const rows = toReportRows(groups, plan, Infinity);
    const ms = performance.now() - t0;
    if (rows.length !== Math.min(limit ?? GROUPS, GROUPS)) throw new Error('unexpected rows');
    return ms;
  };
}

const builds = [['this build', build(path.join(root, 'services/events/dist'))]];
if (process.env.BENCH_COMPARE_DIST)
  builds.push([process.env.BENCH_COMPARE_DIST, build(process.env.BENCH_COMPARE_DIST)]);
console.log(`\n${GROUPS.toLocaleString('en')} url groups ranked by value (toReportRows), median of ${RUNS} runs, ms\n`);
console.log(`| case | ${builds.map(([name]) => name).join(' | ')} |`);
console.log(`|---|${builds.map(() => '---').join('|')}|`);
for (const [limit, order] of CASES) {
  const times = builds.map(() => []);
  for (let r = 0; r < RUNS; r++) builds.forEach(([, run], i) => times[i].push(run(limit, order)));
  const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(`| limit ${limit ?? 'none'}, ${order} | ${times.map((xs) => median(xs).toFixed(0)).join(' | ')} |`);
}
