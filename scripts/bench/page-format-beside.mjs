#!/usr/bin/env node
// `BENCH_PAGES=<file> BENCH_BESIDE=<checkout> pnpm bench:page-format-beside`: the pages another
// build wrote (bench:dump-pages, run in <checkout>), written again by this build from the same
// entries, as its builder would (ownerPages per owner and unit): the binary columns' bytes per
// event, theirs beside these (BENCH_SIZE, 1000000, the events the file was made of). Then the
// decode a report makes of a unit's visitor sets, every page of every owner and unit: the page's
// keys and its `u` column on every device, the unit's dictionary decoded once (when a page leans
// on one), by <checkout>'s reader on its pages and this build's reader on its own, alternating
// which goes first, BENCH_RUNS (9) rounds; p50 milliseconds summed by unit level.
// BENCH_TIME=0: bytes only.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const beside = process.env.BENCH_BESIDE;
if (!process.env.BENCH_PAGES || !beside) throw new Error('BENCH_PAGES=<file> and BENCH_BESIDE=<checkout> are required');
const require = createRequire(import.meta.url);
const { BSON } = require(require.resolve('mongodb', { paths: [path.join(root, 'services/events')] }));
const lib = (checkout) => (p) => require(path.join(checkout, 'services/events/dist', p));
const ours = lib(root);
const theirs = lib(path.resolve(beside));
const SIZE = Number(process.env.BENCH_SIZE ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 9);
const UNIT_LEVELS = ['1h', '2h', '4h', '8h', '1d', '2d', '4d', '8d', '16d', '32d'];

const { FamilyTable } = ours('rollups/cell-table');
const { familyById } = ours('rollups/families');
const { ownerPages } = ours('rollups/owner-pages');
const { forEachStoredEntry, visitorDictionary } = ours('rollups/page-reader');

const file = readFileSync(process.env.BENCH_PAGES);
const byUnit = new Map();
for (let at = 0; at < file.length;) {
  const length = file.readInt32LE(at);
  const doc = BSON.deserialize(file.subarray(at, at + length));
  at += length;
  const key = `${doc.g} ${doc.o}`;
  if (!byUnit.has(key)) byUnit.set(key, []);
  byUnit.get(key).push(doc);
}

const bytes = {};
const add = (key, n) => (bytes[key] = (bytes[key] ?? 0) + n);
const units = [];
for (const docs of byUnit.values()) {
  const totals = docs.find((d) => d.f === 't' && d.p === 0);
  const dictionary = totals && visitorDictionary(totals);
  const tables = new Map();
  for (const doc of docs) {
    if (!tables.has(doc.f)) tables.set(doc.f, new FamilyTable(familyById(doc.f), Number.MAX_SAFE_INTEGER));
    if (doc.over) tables.get(doc.f).overflow();
    else forEachStoredEntry(doc, (name, keys, value) => tables.get(doc.f).add(name, keys, value), dictionary);
  }
  const written = ownerPages(docs[0].g, docs[0].o, tables);
  for (const [side, pages] of [
    ['theirs', docs],
    ['ours', written],
  ])
    for (const page of pages)
      for (const [column, value] of Object.entries(page))
        if (value && typeof value === 'object' && 'position' in value) {
          add(`${side} ${column}`, value.position);
          add(`${side} all`, value.position);
        }
  units.push({
    level: UNIT_LEVELS[Number(docs[0].g.slice(0, docs[0].g.indexOf(':')))] ?? 'zone-day',
    theirs: docs,
    ours: written,
  });
}
const per = (n) => ((n ?? 0) / SIZE).toFixed(2);
const columns = [...new Set(Object.keys(bytes).map((k) => k.split(' ')[1]))].sort();
console.log(`\nBinary columns, bytes per event (${SIZE.toLocaleString('en')} events)\n`);
console.log('| column | beside | this build | difference |');
console.log('|---|---|---|---|');
for (const c of columns)
  console.log(
    `| ${c} | ${per(bytes[`theirs ${c}`])} | ${per(bytes[`ours ${c}`])} | ${per((bytes[`ours ${c}`] ?? 0) - (bytes[`theirs ${c}`] ?? 0))} |`,
  );

if (process.env.BENCH_TIME !== '0') {
  const readers = { theirs: theirs('rollups/page-reader'), ours: ours('rollups/page-reader') };
  const decode = (side, docs) => {
    const { DecodedPage, visitorDictionary: dictionaryOf } = readers[side];
    const totals = docs.find((d) => d.f === 't' && d.p === 0);
    let dictionary;
    for (const doc of docs) {
      if (doc.over || !doc.u) continue;
      const page = new DecodedPage(doc);
      page.visitors = totals?.v ? () => (dictionary ??= dictionaryOf(totals)) : undefined;
      page.load('uniques', true, doc, () => 0);
    }
  };
  const times = { theirs: new Map(), ours: new Map() };
  for (let run = 0; run < RUNS; run++)
    for (const side of run % 2 === 0 ? ['ours', 'theirs'] : ['theirs', 'ours'])
      for (const unit of units) {
        const started = process.hrtime.bigint();
        decode(side, unit[side]);
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        if (!times[side].has(unit.level)) times[side].set(unit.level, new Array(RUNS).fill(0));
        times[side].get(unit.level)[run] += ms;
      }
  const p50 = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
  console.log(`\nDecode of every page's keys and visitor sets (u, every device), p50 of ${RUNS} rounds, ms\n`);
  console.log('| level | beside | this build | this / beside |');
  console.log('|---|---|---|---|');
  for (const level of UNIT_LEVELS.filter((l) => times.ours.has(l))) {
    const a = p50(times.theirs.get(level));
    const b = p50(times.ours.get(level));
    console.log(`| ${level} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${(b / a).toFixed(2)} |`);
  }
}
