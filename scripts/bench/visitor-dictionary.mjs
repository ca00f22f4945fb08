#!/usr/bin/env node
// `pnpm bench:visitor-dictionary`: what the rollup pages' exact visitor sets (`u`) would take if
// they were indexes into a sorted dictionary of visitors instead of delta-coded hashes. Loads the
// events of bench:report (report-data.mjs) and catches the builder up as bench:page-bytes does,
// reads every page the builder writes as it writes it, and re-encodes its exact sets several ways
// (sets past the exact size keep their registers in every variant):
//   now        the stored `u` column (bytes of every entry's sketch);
//   page dict  one dictionary per page: its visitors once, each set as varint index gaps;
//   unit dict  one dictionary per owner and unit, shared by its families' pages;
//   + rice     the same with the dictionary and the index gaps Rice-coded (bits, not varints).
// Prints bytes per event by level and family. BENCH_SIZES (1000000), BENCH_HEAP as bench:report.
//
// Run on a build writing page format 5 (visitor dictionaries), it also times a report's decode of
// the visitor sets on the reported owner's pages (OWNERS[0]) of every unit, side by side in one
// run: as written (format 5: the unit's dictionary decoded from its first totals page, then the
// family's page through it) and the same entries written again as format 4 (hashes), BENCH_RUNS
// (15) rounds alternating which goes first. Prints the p50 milliseconds of all units by level and
// family, and the bytes each read fetches (`u`, and `v` for format 5).
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { UNIT_LEVELS, catchUp, loadEvents, startBenchStandIn } from './report-load.mjs';
import { reportBenchSettings } from './report-scenarios.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const dist = (p) => require(path.join(root, 'services/events/dist', p));
const platform = require(path.join(root, 'packages/platform/dist'));
const { CellStore } = dist('rollups/cell-store');
const { DecodedPage, forEachStoredEntry, visitorDictionary } = dist('rollups/page-reader');
const { writePages } = dist('rollups/page-writer');
const { FamilyTable } = dist('rollups/cell-table');
const { familyById } = dist('rollups/families');
const { OWNERS } = await import('./report-data.mjs');
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
/** The reported owner's pages by generation, kept for the decode timing. */
const owned = new Map();

const SETTINGS = reportBenchSettings({ BENCH_SIZES: '1000000', ...process.env });
const say = (msg) => console.error(`[bench] ${msg}`);
const logger = platform.createLogger({ service: 'bench-visitor-dictionary', level: 'error' });

const varint = (v) =>
  v < 2 ** 7 ? 1 : v < 2 ** 14 ? 2 : v < 2 ** 21 ? 3 : v < 2 ** 28 ? 4 : Math.ceil(Math.log2(v + 1) / 7);
/** Bits of a Rice code of `n` ascending values below `universe` (k = the gap's low bits). */
const riceBits = (n, universe) => (n === 0 ? 0 : n * (2 + Math.max(0, Math.ceil(Math.log2(universe / n)))));
const HASHES = 2 ** 52;

/** (g, owner) -> { level, families: Map(family -> [{ sets: Float64Array[], hll: bytes, now: bytes }]) } */
const units = new Map();

/** `${g} ${owner}` -> the visitor dictionary of that owner's unit (format 5), from its first totals page. */
const dictionaries = new Map();

function collect(docs) {
  for (const doc of docs) {
    const dictionary = visitorDictionary(doc);
    if (dictionary) dictionaries.set(`${doc.g} ${doc.o}`, dictionary);
  }
  for (const doc of docs) {
    if (doc.o === OWNERS[0] && !doc.over) owned.set(doc.g, [...(owned.get(doc.g) ?? []), doc]);
    if (!doc.u || doc.over) continue;
    const level = UNIT_LEVELS[Number(doc.g.slice(0, doc.g.indexOf(':')))] ?? 'zone-day';
    const key = `${doc.g} ${doc.o}`;
    let unit = units.get(key);
    if (!unit) units.set(key, (unit = { level, families: new Map() }));
    const page = new DecodedPage(doc);
    page.visitors = dictionaries.get(key);
    page.load('uniques', false, doc, () => 0);
    const sets = [];
    let hllBytes = 0;
    let hllCount = 0;
    for (const s of page.foldedStates('uniques')) {
      if (s.kind === 'exact') {
        if (s.hashes.length > 0) sets.push(Float64Array.from(s.hashes));
      } else {
        hllCount++;
        let used = 0;
        for (let i = 0; i < s.registers.length; i++) if (s.registers[i] !== 0) used++;
        hllBytes += Math.min(used * 3 + 1 + varint(used * 3), 12288 + 1);
      }
    }
    const list = unit.families.get(doc.f) ?? [];
    list.push({ sets, hllBytes, hllCount, now: doc.u.position, entries: page.count });
    unit.families.set(doc.f, list);
  }
}

function union(sets) {
  const all = new Set();
  for (const s of sets) for (const h of s) all.add(h);
  return Float64Array.from(all).sort();
}

/** Bytes of a dictionary (varint gaps; Rice). */
function dictBytes(dict) {
  let v = varint(dict.length);
  let previous = 0;
  for (const h of dict) {
    v += varint(h - previous);
    previous = h;
  }
  return { varint: v, rice: 2 + Math.ceil(riceBits(dict.length, HASHES) / 8) };
}

/** Bytes of the sets as indexes into `dict` (kind byte and count each; varint gaps; Rice gaps). */
function setBytes(sets, dict) {
  const index = new Map();
  for (let i = 0; i < dict.length; i++) index.set(dict[i], i);
  let v = 0;
  let rice = 0;
  for (const s of sets) {
    v += 1 + varint(s.length);
    rice += 1 + varint(s.length);
    let previous = 0;
    for (const h of s) {
      const i = index.get(h);
      v += varint(i - previous);
      previous = i;
    }
    rice += Math.min(Math.ceil(riceBits(s.length, dict.length) / 8), Math.ceil(dict.length / 8));
  }
  return { varint: v, rice };
}

function report(size) {
  const tally = new Map();
  const add = (level, family, variant, bytes) => {
    const k = `${level} ${family}`;
    const row = tally.get(k) ?? {};
    row[variant] = (row[variant] ?? 0) + bytes;
    tally.set(k, row);
  };
  for (const unit of units.values()) {
    const allSets = [];
    for (const pages of unit.families.values()) for (const p of pages) allSets.push(...p.sets);
    const unitDict = union(allSets);
    const unitDictBytes = dictBytes(unitDict);
    add(unit.level, 'dict', 'unit', unitDictBytes.varint);
    add(unit.level, 'dict', 'unit+rice', unitDictBytes.rice);
    add(unit.level, 'dict', 'visitors', unitDict.length);
    for (const [family, pages] of unit.families) {
      for (const p of pages) {
        add(unit.level, family, 'now', p.now);
        add(unit.level, family, 'entries', p.entries);
        add(unit.level, family, 'hll', p.hllBytes);
        const pageDict = union(p.sets);
        const pd = dictBytes(pageDict);
        const ps = setBytes(p.sets, pageDict);
        add(unit.level, family, 'page', pd.varint + ps.varint + p.hllBytes + (p.entries - p.sets.length - p.hllCount));
        add(unit.level, family, 'page+rice', pd.rice + ps.rice + p.hllBytes + (p.entries - p.sets.length - p.hllCount));
        const us = setBytes(p.sets, unitDict);
        add(unit.level, family, 'unit', us.varint + p.hllBytes + (p.entries - p.sets.length - p.hllCount));
        add(unit.level, family, 'unit+rice', us.rice + p.hllBytes + (p.entries - p.sets.length - p.hllCount));
        add(
          unit.level,
          family,
          'refs',
          p.sets.reduce((a, s) => a + s.length, 0),
        );
      }
    }
  }
  const per = (b) => (b === undefined ? '-' : (b / size).toFixed(1));
  const variants = ['now', 'page', 'page+rice', 'unit', 'unit+rice', 'hll'];
  console.log(`\n${size.toLocaleString('en')} events: \`u\` bytes per event by level and family\n`);
  console.log(`| level | family | ${variants.join(' | ')} | visitor refs per event |`);
  console.log(`|---|---|${variants.map(() => '---|').join('')}---|`);
  const totals = {};
  for (const [k, row] of [...tally].sort()) {
    const [level, family] = k.split(' ');
    for (const v of variants) totals[v] = (totals[v] ?? 0) + (row[v] ?? 0);
    console.log(
      `| ${level} | ${family} | ${variants.map((v) => per(row[v])).join(' | ')} | ${family === 'dict' ? `visitors ${per(row.visitors)}` : per(row.refs)} |`,
    );
  }
  console.log(`| all | all | ${variants.map((v) => per(totals[v])).join(' | ')} | |`);
}

/** The decode timing (format 5 pages as written vs the same entries as format 4), when the pages have dictionaries. */
function timeDecodes() {
  const cases = [];
  for (const [g, docs] of owned) {
    const totals = docs.find((d) => d.f === 't' && d.p === 0);
    if (!totals?.v) continue;
    const dictionary = visitorDictionary(totals);
    const level = UNIT_LEVELS[Number(g.slice(0, g.indexOf(':')))] ?? 'zone-day';
    for (const doc of docs) {
      const table = new FamilyTable(familyById(doc.f), 1e9);
      forEachStoredEntry(doc, (name, keys, value) => table.add(name, keys, value), dictionary);
      const old = writePages(g, doc.o, table.family, table.sorted(), 1e12, 4)[0];
      cases.push({ level, family: doc.f, doc, totals, old });
    }
  }
  if (cases.length === 0) return;
  const ways = {
    f5: (c) => {
      const page = new DecodedPage(c.doc);
      page.visitors = visitorDictionary(c.totals);
      page.load('uniques', false, c.doc, () => 0);
    },
    f4: (c) => new DecodedPage(c.old).load('uniques', false, c.old, () => 0),
  };
  const times = new Map();
  for (let run = 0; run < RUNS; run++) {
    for (const way of run % 2 === 0 ? ['f5', 'f4'] : ['f4', 'f5']) {
      for (const c of cases) {
        const k = `${c.level} ${c.family} ${way}`;
        const started = process.hrtime.bigint();
        ways[way](c);
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        const list = times.get(k) ?? Array.from({ length: RUNS }, () => 0);
        list[run] += ms;
        times.set(k, list);
      }
    }
  }
  const p50 = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
  const bytes = (c, way) =>
    way === 'f4' ? (c.old.u?.position ?? 0) : (c.doc.u?.position ?? 0) + (c.totals.v?.position ?? 0);
  console.log(`\nDecode of the reported owner's visitor sets, every unit, p50 of ${RUNS} rounds (ms; KB read)\n`);
  console.log('| level | family | format 4 ms | format 5 ms | 5 / 4 | format 4 KB | format 5 KB (u + v) |');
  console.log('|---|---|---|---|---|---|---|');
  for (const level of UNIT_LEVELS)
    for (const family of ['t', 'p', 'g', 'c']) {
      const of = cases.filter((c) => c.level === level && c.family === family);
      if (of.length === 0) continue;
      const a = p50(times.get(`${level} ${family} f4`));
      const b = p50(times.get(`${level} ${family} f5`));
      const kb = (way) => (of.reduce((n, c) => n + bytes(c, way), 0) / 1e3).toFixed(0);
      console.log(
        `| ${level} | ${family} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${(b / a).toFixed(2)} | ${kb('f4')} | ${kb('f5')} |`,
      );
    }
}

async function main() {
  const writePages = CellStore.prototype.writePages;
  CellStore.prototype.writePages = function (g, parts, docs) {
    collect(docs);
    return writePages.call(this, g, parts, docs);
  };
  const mongoServer = await startBenchStandIn(path.join(os.tmpdir(), `bench-dict-gc-${process.pid}.log`));
  try {
    for (const size of SETTINGS.sizes) {
      units.clear();
      dictionaries.clear();
      const handle = await platform.connectMongo(mongoServer.url, `bench_dict_${randomBytes(4).toString('hex')}`);
      try {
        const loaded = await loadEvents(handle.db, size, SETTINGS, { logger, say });
        await catchUp(handle.db, loaded.marks, { say });
        report(size);
        timeDecodes();
        owned.clear();
      } finally {
        await handle.db.dropDatabase().catch(() => undefined);
        await handle.close();
      }
    }
  } finally {
    await mongoServer.stop();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
