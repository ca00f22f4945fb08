// The SQL a ClickHouse user writes for each report scenario of bench:peer, and the check of its
// answer against ours. Exact functions throughout (uniqExact, quantileExact), so where ours is
// exact the answers must be equal, and where ours is a sketch the difference is its error.

import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const require = createRequire(import.meta.url);

const DAY_MS = 86_400_000;
const quote = (s) => `'${String(s).replace(/[\\']/g, (c) => `\\${c}`)}'`;
// what a report filters and groups by besides the name, each a column of the table (peer/clickhouse.mjs)
const { DIMENSIONS } = require(path.join(root, 'services/events/dist/storage/dimensions'));
// the report names an event without a country "unknown"; the table holds ""
const stored = (dimension, value) => (dimension === 'country' && value === 'unknown' ? '' : value);
const asList = (v) => (v === undefined ? [] : Array.isArray(v) ? v : String(v).split(','));
const isDate = (s) => /^\d{4}-\d{2}-\d{2}$/.test(s);
const nextDay = (d) => new Date(Date.parse(`${d}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);
// an inclusive second-precision bound covers its whole second: the exclusive bound is the next second
const nextSecond = (s) =>
  new Date(Date.parse(`${s.replace(' ', 'T')}Z`) + 1000).toISOString().slice(0, 19).replace('T', ' ');

/**
 * The WHERE of `body` for `owner`: the owner and time first (the table's order), bots never
 * counted. The days are named as well as the instants: ClickHouse derives no range of the sort
 * key's toDate(ts) from a range of a DateTime64 `ts`, so without them a one-day query reads every
 * granule of the owner's month (schemas with a date column in the sort key filter it the same way).
 */
function where(owner, body) {
  const tz = body.timezone ?? 'UTC';
  const fromZone = isDate(body.created__gte) ? tz : 'UTC';
  const toZone = isDate(body.created__lte) ? tz : 'UTC';
  const from = isDate(body.created__gte) ? `${body.created__gte} 00:00:00` : body.created__gte;
  const to = isDate(body.created__lte) ? `${nextDay(body.created__lte)} 00:00:00` : nextSecond(body.created__lte);
  const fromTs = `toDateTime64(${quote(from)}, 3, ${quote(fromZone)})`;
  const toTs = `toDateTime64(${quote(to)}, 3, ${quote(toZone)})`;
  // the UTC days the instants fall on: literals when the bounds are UTC, else ClickHouse converts them
  const days =
    fromZone === 'UTC' && toZone === 'UTC'
      ? `toDate(ts) BETWEEN ${quote(from.slice(0, 10))} AND ${quote(new Date(Date.parse(`${to.replace(' ', 'T')}Z`) - 1).toISOString().slice(0, 10))}`
      : `toDate(ts) BETWEEN toDate(${fromTs}, 'UTC') AND toDate(${toTs} - INTERVAL 1 MILLISECOND, 'UTC')`;
  const parts = [`owner = ${quote(owner)}`, days, `ts >= ${fromTs}`, `ts < ${toTs}`, 'NOT bot'];
  const names = asList(body.name);
  if (names.length === 1) parts.push(`name = ${quote(names[0])}`);
  if (names.length > 1) parts.push(`name IN (${names.map(quote).join(', ')})`);
  for (const d of DIMENSIONS.filter((x) => body[x] !== undefined)) {
    const values = asList(body[d]).map((v) => quote(stored(d, v)));
    parts.push(values.length === 1 ? `${d} = ${values[0]}` : `${d} IN (${values.join(', ')})`);
  }
  return parts.join(' AND ');
}

/**
 * `<measure>_<stat>` as an aggregate over the rows that carry the measure (NULLs are skipped).
 * Percentiles: quantileExact, the user's choice, takes the value at 0-based position floor(q n);
 * the report's is the nearest rank, ceil(q n) 1-based, the same except where q n is whole (the
 * next value up then). `nearestRank` writes that definition out, to check ours against.
 */
function measureColumn(metric, nearestRank) {
  const [, name, stat] = /^(engaged_ms|scroll_depth|value)_(.+)$/.exec(metric);
  // the measure `value` is qualified: in this SELECT `value` is the alias of count()
  const measure = name === 'value' ? 'events.value' : name;
  if (stat === 'sum' || stat === 'avg') return `${stat}(${measure}) AS ${metric}`;
  const q = /^p\d+$/.test(stat) ? Number(stat.slice(1)) / 100 : undefined;
  if (q !== undefined && nearestRank)
    // the report's tolerance: q n never rounds up past a whole number (0.07 x 100 is 7.000000000000001)
    return `arraySort(groupArray(${measure}))[toUInt64(greatest(1, ceil(${q} * count(${measure}) - 1e-9)))] AS ${metric}`;
  if (q !== undefined) return `quantileExact(${q})(${measure}) AS ${metric}`;
  const gte = /^gte_(\d+)$/.exec(stat);
  if (gte) return `countIf(${measure} >= ${gte[1]}) / count(${measure}) AS ${metric}`;
  throw new Error(`no SQL for the metric ${metric}`);
}

/** The SQL for a scenario's report body, answering one row per group like the report does. */
export function clickhouseSql(owner, body, { nearestRank = false } = {}) {
  const time = body.interval === 'day' ? [`toStartOfDay(ts, ${quote(body.timezone ?? 'UTC')}) AS time`] : [];
  const metrics = asList(body.metrics ?? 'count');
  if (body.conversion) {
    // a ClickHouse user asks for both counts per day in one row and divides
    const { from, to } = body.conversion;
    return [
      `SELECT ${time[0]}, countIf(name = ${quote(from)}) AS from_count, countIf(name = ${quote(to)}) AS to_count,`,
      `to_count / from_count AS conversion_rate`,
      `FROM events WHERE ${where(owner, body)} GROUP BY time ORDER BY time`,
    ].join(' ');
  }
  const keys = [...(time.length > 0 ? ['time'] : []), 'name', ...asList(body.group_by)];
  const columns = [
    ...time,
    ...keys.filter((k) => k !== 'time'),
    ...metrics.map((m) =>
      m === 'count'
        ? 'count() AS value'
        : m === 'uniques'
          ? 'uniqExact(visitor) AS uniques'
          : measureColumn(m, nearestRank),
    ),
    // the latest matching event's value, as the report gives it
    ...asList(body.metadata).map((k) => `argMax(metadata[${quote(k)}], ts) AS ${k}`),
  ];
  const order = body.limit
    ? `ORDER BY ${body.order_by ?? 'value'} DESC LIMIT ${Number(body.limit)}`
    : `ORDER BY ${keys.join(', ')}`;
  return `SELECT ${columns.join(', ')} FROM events WHERE ${where(owner, body)} GROUP BY ${keys.join(', ')} ${order}`;
}

/** Whether the body asks for a percentile (whose exact value depends on its definition). */
export const asksPercentile = (body) => asList(body.metrics).some((m) => /_p\d+$/.test(m));

/**
 * ClickHouse's rows (format JSON) in the report's shape: numbers as numbers (the group fields stay
 * text), an absent country "unknown", a conversion's day as its two rows.
 */
function reportShaped(body, rows) {
  const numeric = (row) =>
    Object.fromEntries(
      Object.entries(row).map(([k, v]) => [
        k,
        k === 'country' && v === ''
          ? 'unknown'
          : !DIMENSIONS.includes(k) && typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v)
            ? Number(v)
            : v,
      ]),
    );
  if (!body.conversion) return rows.map(numeric);
  const { from, to } = body.conversion;
  return rows.map(numeric).flatMap((r) => [
    { time: r.time, name: from, value: r.from_count, conversion_rate: r.conversion_rate },
    { time: r.time, name: to, value: r.to_count },
  ]);
}

const rowKey = (row) =>
  [row.time ? row.time.slice(0, 19).replace('T', ' ') : '', row.name, ...DIMENSIONS.map((d) => row[d] ?? '')].join('|');

/**
 * Ours against ClickHouse's answer: `mismatches` where ours is exact (counts, sums, averages,
 * rates, exact uniques) and must be equal; the relative error of each approximate metric (the
 * largest over the rows); the metadata values that differ (the latest event of a group can tie);
 * in a top-N ranked by a sketched metric, the groups that only one side keeps (a near tie at the
 * last place may go either way): `edgeDiffers`.
 */
export function compareAnswers(body, ours, theirsRows) {
  const theirs = reportShaped(body, theirsRows);
  const mismatches = [];
  const errors = {};
  let metadataDiffers = 0;
  let edgeDiffers = 0;
  const byKey = new Map(theirs.map((r) => [rowKey(r), r]));
  const sketchRanked = body.limit && body.order_by === 'uniques' && ours.some((r) => !r.uniques_exact);
  if (sketchRanked) {
    if (ours.length !== theirs.length) mismatches.push(`${ours.length} rows vs ${theirs.length}`);
    edgeDiffers = ours.filter((r) => !byKey.has(rowKey(r))).length;
  } else if (body.limit) {
    // a top-N may break ties at its last place either way: the ranked values must be the same
    const field = body.order_by ?? 'value';
    const a = ours.map((r) => r[field]).join(',');
    const b = theirs.map((r) => r[field]).join(',');
    if (a !== b) mismatches.push(`top values ${a} vs ${b}`);
  } else if (ours.length !== theirs.length) mismatches.push(`${ours.length} rows vs ${theirs.length}`);
  const metadataKeys = asList(body.metadata);
  for (const row of ours) {
    const other = byKey.get(rowKey(row));
    if (!other) {
      if (!body.limit) mismatches.push(`no ClickHouse row for ${rowKey(row)}`);
      continue;
    }
    for (const [field, mine] of Object.entries(row)) {
      if (['time', 'name', 'metadata', ...DIMENSIONS].includes(field) || field.endsWith('_exact')) continue;
      const truth = other[field];
      const exact = ['value', 'conversion_rate'].includes(field) || field.endsWith('_avg') || row[`${field}_exact`];
      if (exact) {
        if (Math.abs(mine - truth) > 1e-9 * Math.max(1, Math.abs(truth)))
          mismatches.push(`${rowKey(row)} ${field}: ${mine} vs ${truth}`);
      } else if (truth !== 0 || mine !== 0) {
        const e = Math.abs(mine - truth) / Math.abs(truth);
        errors[field] = Math.max(errors[field] ?? 0, e);
      }
    }
    for (const k of metadataKeys) if ((row.metadata?.[k] ?? '') !== (other[k] ?? '')) metadataDiffers += 1;
  }
  return { mismatches, errors, metadataDiffers, edgeDiffers, rows: ours.length };
}

/** The largest relative difference per percentile between ClickHouse's quantileExact and the nearest rank, same groups. */
export function percentileDefinitionGap(body, quantileExactRows, nearestRankRows) {
  const nearest = new Map(reportShaped(body, nearestRankRows).map((r) => [rowKey(r), r]));
  const gap = {};
  for (const row of reportShaped(body, quantileExactRows))
    for (const m of asList(body.metrics).filter((x) => /_p\d+$/.test(x))) {
      const truth = nearest.get(rowKey(row))?.[m];
      if (truth) gap[m] = Math.max(gap[m] ?? 0, Math.abs(row[m] - truth) / truth);
    }
  return gap;
}
