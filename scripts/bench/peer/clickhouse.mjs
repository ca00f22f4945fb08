// The ClickHouse side of bench:peer: chDB (ClickHouse in process, pinned in requirements.txt,
// installed into .cache/peer-venv on first use) in one Python process (clickhouse.py) that runs
// the SQL sent to it and times each query itself; the events table; the events as TSV.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..', '..');

/** The venv's python with the pinned chDB, (re)installed when the pin changes. */
export function ensureChdb(say) {
  const venv = path.join(root, '.cache', 'peer-venv');
  const python = path.join(venv, 'bin', 'python');
  const requirements = path.join(here, 'requirements.txt');
  const pinned = /^chdb==([\w.]+)/m.exec(readFileSync(requirements, 'utf8'))[1];
  const probe = spawnSync(python, ['-c', 'import chdb; print(chdb.__version__)'], { encoding: 'utf8' });
  if (probe.stdout?.trim() === pinned) return python;
  say(`installing chdb ${pinned} into .cache/peer-venv`);
  execFileSync('python3', ['-m', 'venv', venv], { stdio: 'inherit' });
  execFileSync(
    path.join(venv, 'bin', 'pip'),
    ['install', '--quiet', '--disable-pip-version-check', '-r', requirements],
    { stdio: 'inherit' },
  );
  return python;
}

/**
 * The table as a ClickHouse user lays it out for this workload. Every report filters one owner
 * and a time range, some also names: the sort key puts the owner first, then the day (a range
 * prunes whole days of granules; the queries name the days, see peer/sql.mjs), then the name (a
 * name filter prunes within each day), then the time. Names, owners and device types have a handful of values each: LowCardinality
 * (dictionary-encoded), and so have countries (about 250 codes), UTM values and referring hosts
 * (a publisher's campaigns and referring sites number in the hundreds or thousands, the
 * dictionary's sweet spot). URLs, content ids and metadata values are open-ended on the real web
 * (query strings): plain strings, compressed with ZSTD. An absent country or attribution field is
 * the empty string, as the report's "" (a report shows an absent country as "unknown"). The timestamp is delta-coded.
 * Measures are Nullable: an event carries only the measures it has, and ClickHouse's aggregates
 * skip NULLs, which is the report's "over the events that carry the measure". Bots are stored
 * (as ours stores them) and filtered out by every query. The id (UUIDv7, our de-duplication key)
 * is kept as a column, like ours keeps it on the raw event.
 */
export const EVENTS_TABLE = `CREATE TABLE events (
  owner LowCardinality(String),
  ts DateTime64(3, 'UTC') CODEC(Delta, ZSTD(1)),
  name LowCardinality(String),
  url String CODEC(ZSTD(1)),
  content_id String CODEC(ZSTD(1)),
  device_type LowCardinality(String),
  bot Bool,
  visitor UInt64 CODEC(ZSTD(1)),
  metadata Map(LowCardinality(String), String) CODEC(ZSTD(1)),
  country LowCardinality(String),
  utm_source LowCardinality(String),
  utm_medium LowCardinality(String),
  utm_campaign LowCardinality(String),
  utm_content LowCardinality(String),
  utm_term LowCardinality(String),
  referrer LowCardinality(String),
  engaged_ms Nullable(UInt32),
  scroll_depth Nullable(UInt8),
  value Nullable(UInt64),
  id UUID CODEC(ZSTD(1))
) ENGINE = MergeTree
PARTITION BY toYYYYMM(ts)
ORDER BY (owner, toDate(ts), name, ts)`;

/** The event's string fields that are absent when empty: the visitor's country and attribution. */
const ATTRIBUTES = ['country', 'utm_source', 'utm_medium', 'utm_campaign', 'utm_content', 'utm_term', 'referrer'];

/** The columns of the TSV rows `tsvRows` writes, in its order, for ClickHouse's file() table function. */
export const TSV_STRUCTURE = [
  'owner String',
  "ts DateTime64(3, 'UTC')",
  'name String',
  'url String',
  'content_id String',
  'device_type String',
  'bot Bool',
  'visitor UInt64',
  'metadata Map(String, String)',
  ...ATTRIBUTES.map((c) => `${c} String`),
  'engaged_ms Nullable(UInt32)',
  'scroll_depth Nullable(UInt8)',
  'value Nullable(UInt64)',
  'id UUID',
].join(', ');

const tsvText = (s) => s.replace(/[\\\t\n\r]/g, (c) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' })[c]);
// inside a Map literal the strings are quoted, and the field as a whole is TSV text
const quoted = (s) => `'${s.replace(/[\\']/g, (c) => `\\${c}`)}'`;
const nullable = (n) => (n === undefined ? '\\N' : String(n));

/** Event documents (report-data.mjs) as TSV rows of TSV_STRUCTURE. */
export function tsvRows(docs) {
  let out = '';
  for (const d of docs) {
    const m = d.measures ?? {};
    const metadata = Object.entries(d.metadata ?? {})
      .map(([k, v]) => `${quoted(k)}:${quoted(v)}`)
      .join(',');
    out += `${[
      d.owner_id,
      d.created.toISOString().slice(0, 23).replace('T', ' '),
      tsvText(d.name),
      tsvText(d.url ?? ''),
      tsvText(d.content_id ?? ''),
      d.device_type,
      d.bot ? 'true' : 'false',
      d.visitor,
      tsvText(`{${metadata}}`),
      ...ATTRIBUTES.map((c) => tsvText(d[c] ?? '')),
      nullable(m.engaged_ms),
      nullable(m.scroll_depth),
      nullable(m.value),
      d._id,
    ].join('\t')}\n`;
  }
  return out;
}

/** Starts clickhouse.py on `dataDir`; `query(sql, {result})` resolves to its answer, `stop()` ends it. */
export function startClickHouse(python, dataDir) {
  const child = spawn(python, [path.join(here, 'clickhouse.py'), dataDir], { stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting = [];
  let exited;
  const done = new Promise((resolve) => child.on('exit', (code) => resolve((exited = code))));
  readline.createInterface({ input: child.stdout }).on('line', (line) => waiting.shift()?.resolve(JSON.parse(line)));
  child.on('exit', (code) => {
    for (const w of waiting.splice(0)) w.reject(new Error(`clickhouse.py exited with ${code}`));
  });
  return {
    async query(sql, { result = false, format = 'JSON' } = {}) {
      if (exited !== undefined) throw new Error(`clickhouse.py exited with ${exited}`);
      const answer = await new Promise((resolve, reject) => {
        waiting.push({ resolve, reject });
        child.stdin.write(`${JSON.stringify({ sql, result, format })}\n`);
      });
      if (answer.error) throw new Error(`ClickHouse: ${answer.error}\nSQL: ${sql}`);
      return answer;
    },
    async stop() {
      child.stdin.end();
      await done;
    },
  };
}
