// bench:peer's tables (markdown, on stdout): per size, ours against ClickHouse per scenario and
// the bytes per event of each; then a summary over the sizes.
import { OWNERS } from '../report-data.mjs';
import { fmt, quantile } from '../report-scenarios.mjs';

const TARGET = 0.5;
const mb = (b) => `${(b / 1e6).toFixed(1)} MB`;
const perEvent = (b, n) => (b / n).toFixed(1);
const label = (n) => (n >= 1e6 ? `${n / 1e6}M` : `${n / 1e3}k`);
const p50 = (xs) => quantile(xs, 0.5);

/** The cells' bytes, unless rollup threads wrote the pages (BENCH_ROLLUP_THREADS): nothing was tallied then. */
function cellsLine(built, cellFields, size) {
  if (built.threads > 1)
    return `not tallied (built by ${built.threads} rollup threads; a run with one builder tallies them)`;
  return `${perEvent(built.cellBytes, size)} B/event (${mb(built.cellBytes)} as BSON; their counts, latest events and sketches alone ${perEvent(cellFields, size)})`;
}

function printSize(r, { settings, engine }) {
  const { loaded } = r;
  const ch = loaded.clickhouse;
  console.log(
    `\n${r.size.toLocaleString('en')} events over ${settings.days} days (${OWNERS.length} owners, ${settings.urls.toLocaleString('en')} Zipf URLs; the reported owner has ${r.owned.toLocaleString('en')} non-bot events). Ours: written in ${loaded.seconds.toFixed(0)} s, rollups caught up in ${loaded.built.seconds.toFixed(0)} s (${loaded.built.cellDocs.toLocaleString('en')} cell documents), timed over HTTP on loopback. ClickHouse ${engine.version} (chDB, max_threads ${engine.threads}): inserted in ${ch.insertSeconds.toFixed(1)} s, merged to one part per month in ${ch.optimizeSeconds.toFixed(1)} s, timed inside its process. Load average ${r.load[0].toFixed(1)} before timing, ${r.load[1].toFixed(1)} after; ${settings.runs} runs per scenario, the two alternating.\n`,
  );
  const cellFields = Object.values(loaded.built.bytes).reduce((a, b) => a + b, 0);
  const columns = ch.columns
    .slice(0, 5)
    .map((c) => `${c.column} ${perEvent(c.bytes, r.size)}`)
    .join(', ');
  console.log(
    `Bytes per event: ours, rollup cells ${cellsLine(loaded.built, cellFields, r.size)}, raw events ${perEvent(loaded.rawBytes, r.size)} B/event (${mb(loaded.rawBytes)} as BSON, before indexes and before any storage-engine compression); ClickHouse, the table on disk ${perEvent(ch.bytes, r.size)} B/event (${mb(ch.bytes)}, system.parts; largest columns in B/event: ${columns}).\n`,
  );
  console.log(
    '| scenario | rows | ours p50 ms, answer received | ClickHouse p50 ms | ours / ClickHouse | target <= 0.5 | ours p50 ms, parsed by the client too | parsed / ClickHouse | ours p99 ms (received) | ClickHouse p99 ms | ClickHouse rows read | answer KB | its bytes over bare HTTP, p50 ms received / parsed | bare received / ClickHouse |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const [i, s] of r.list.entries()) {
    const [a, b, f] = [p50(r.ours[i]), p50(r.theirs[i]), p50(r.floors[i])];
    const [ap, fp] = [p50(r.oursParsed[i]), p50(r.floorsParsed[i])];
    console.log(
      `| ${s.name} | ${s.check.rows} | ${fmt(a)} | ${fmt(b)} | ${(a / b).toFixed(2)} | ${a / b <= TARGET ? 'met' : 'not met'} | ${fmt(ap)} | ${(ap / b).toFixed(2)} | ${fmt(quantile(r.ours[i], 0.99))} | ${fmt(quantile(r.theirs[i], 0.99))} | ${s.rowsRead.toLocaleString('en')} | ${(r.answerBytes[i] / 1024).toFixed(1)} | ${fmt(f)} / ${fmt(fp)} | ${(f / b).toFixed(2)} |`,
    );
  }
  console.log(
    `| floor: an HTTP 404 of the same app / SELECT 1 | | ${fmt(p50(r.floor.ours))} | ${fmt(p50(r.floor.theirs))} | | | | | ${fmt(quantile(r.floor.ours, 0.99))} | ${fmt(quantile(r.floor.theirs, 0.99))} | | | | |`,
  );
  const pct = (e) => `${(e * 100).toFixed(2)} %`;
  const approx = r.list
    .filter((s) => Object.keys(s.check.errors).length > 0 || s.body.metadata)
    .map((s) => {
      const errors = Object.entries(s.check.errors).map(([m, e]) => `${m} ${pct(e)}`);
      if (s.body.metadata) errors.push(`metadata values differing: ${s.check.metadataDiffers}`);
      if (s.check.edgeDiffers)
        errors.push(`groups only one side keeps in the top ${s.body.limit}: ${s.check.edgeDiffers}`);
      const gap = Object.entries(s.check.definitionGap ?? {}).map(([m, e]) => `${m} ${pct(e)}`);
      if (gap.length > 0) errors.push(`(quantileExact itself is off the nearest rank by up to ${gap.join(', ')})`);
      return `${s.name}: ${errors.join(', ')}`;
    });
  console.log(
    `\nAnswers: counts, sums, averages, rates and exact uniques equal ClickHouse's in every scenario. Ours against the exact answers (uniqExact; percentiles: the exact nearest-rank value, the report's definition), the largest relative error over the rows: ${approx.join('; ')}.`,
  );
}

function printSummary(results) {
  console.log('\nSummary (p50, ours / ClickHouse):\n');
  for (const r of results) {
    const ratios = r.list.map((s, i) => ({ name: s.name, ratio: p50(r.ours[i]) / p50(r.theirs[i]) }));
    const met = ratios.filter((x) => x.ratio <= TARGET).length;
    const metParsed = r.list.filter((s, i) => p50(r.oursParsed[i]) / p50(r.theirs[i]) <= TARGET).length;
    const faster = ratios.filter((x) => x.ratio < 1).length;
    const geo = Math.exp(ratios.reduce((a, x) => a + Math.log(x.ratio), 0) / ratios.length);
    const worst = ratios.reduce((a, x) => (x.ratio > a.ratio ? x : a));
    const best = ratios.reduce((a, x) => (x.ratio < a.ratio ? x : a));
    const reachable = r.list.filter((s, i) => p50(r.floors[i]) / p50(r.theirs[i]) <= TARGET).length;
    console.log(
      `- ${label(r.size)} events: the answer's bytes alone over bare HTTP are within the target in ${reachable} of ${ratios.length} scenarios${reachable < ratios.length ? ' (the others cannot meet it over HTTP, whatever the read side does)' : ': what is left is the read side'}.`,
    );
    console.log(
      `- ${label(r.size)} events: target (<= ${TARGET}) met in ${met} of ${ratios.length} scenarios with ours timed to the answer received (${metParsed} of ${ratios.length} with the client's parse of it too); ours faster in ${faster}, ClickHouse in ${ratios.length - faster}; geometric mean ${geo.toFixed(2)}; best ${best.ratio.toFixed(2)} (${best.name}), worst ${worst.ratio.toFixed(2)} (${worst.name}).`,
    );
  }
  if (results.length < 2) return;
  const [small, large] = [results[0], results[results.length - 1]];
  const [a, b] = [label(small.size), label(large.size)];
  console.log(
    `\n| scenario (p50 ms) | ours ${a} | ours ${b} | ours ${b}/${a} | ClickHouse ${a} | ClickHouse ${b} | ClickHouse ${b}/${a} |`,
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const [i, s] of small.list.entries()) {
    const [o1, o2, c1, c2] = [small.ours[i], large.ours[i], small.theirs[i], large.theirs[i]].map(p50);
    console.log(
      `| ${s.name} | ${fmt(o1)} | ${fmt(o2)} | ${(o2 / o1).toFixed(2)} | ${fmt(c1)} | ${fmt(c2)} | ${(c2 / c1).toFixed(2)} |`,
    );
  }
}

/** Prints each result's tables, and with `summary` the summary over all of them. */
export function printResults(results, { settings, engine, summary }) {
  if (!summary) for (const r of results) printSize(r, { settings, engine });
  else printSummary(results);
}
