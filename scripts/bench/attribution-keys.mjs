#!/usr/bin/env node
// `pnpm bench:attribution-keys`: how many entries a rollup family keyed by each choice of
// attribution fields holds, on bench:report's events as browsers send them (report-web.mjs), per
// unit level (an hour, a day, 32 days) summed over owners and names. Entries are what a report by
// campaign merges and what the pages store per unit, so this is the measurement behind the family
// `c` (rollups/families.ts): source, medium, campaign and referrer, without utm_content and
// utm_term. No store, no service: the generator alone. BENCH_EVENTS (1,000,000), BENCH_DAYS (30).
import os from 'node:os';
import { eventBatches } from './report-data.mjs';
import { reportBenchSettings } from './report-scenarios.mjs';

const SETTINGS = reportBenchSettings();
const TOTAL = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const DESIGNS = {
  'all six (family a, format 2)': ['utm_source', 'utm_medium', 'utm_campaign', 'utm_content', 'utm_term', 'referrer'],
  'source, medium, campaign, referrer (family c)': ['utm_source', 'utm_medium', 'utm_campaign', 'referrer'],
  'source, medium, campaign': ['utm_source', 'utm_medium', 'utm_campaign'],
  'referrer alone': ['referrer'],
  'content, term': ['utm_content', 'utm_term'],
};
const LEVELS = { '1h': 3_600_000, '1d': 86_400_000, '32d': 32 * 86_400_000 };

const sets = Object.fromEntries(
  Object.keys(DESIGNS).map((d) => [d, Object.fromEntries(Object.keys(LEVELS).map((l) => [l, new Set()]))]),
);
let events = 0;
const batches = eventBatches(
  { total: TOTAL, days: SETTINGS.days, firstDay: SETTINGS.firstDay, urls: SETTINGS.urls, batch: 10_000, noise: true },
  new Map(),
);
for (const batch of batches) {
  for (const e of batch) {
    if (e.bot) continue;
    events++;
    const t = e.created.getTime();
    for (const [design, fields] of Object.entries(DESIGNS)) {
      const key = `${e.owner_id}\u0000${e.name}\u0000${fields.map((f) => e[f] ?? '').join('\u0000')}`;
      for (const [level, ms] of Object.entries(LEVELS)) sets[design][level].add(`${Math.floor(t / ms)}\u0000${key}`);
    }
  }
}
console.log(
  `\n${events.toLocaleString('en')} non-bot events of ${TOTAL.toLocaleString('en')} over ${SETTINGS.days} days, as browsers send them; load average ${os.loadavg()[0].toFixed(1)}. Entries per unit level, summed over units, owners and names:\n`,
);
console.log(`| family keyed by | ${Object.keys(LEVELS).join(' | ')} |`);
console.log(
  `|---|${Object.keys(LEVELS)
    .map(() => '---')
    .join('|')}|`,
);
for (const design of Object.keys(DESIGNS))
  console.log(
    `| ${design} | ${Object.keys(LEVELS)
      .map((l) => sets[design][l].size.toLocaleString('en'))
      .join(' | ')} |`,
  );
