// Rollup pages built in memory by the builder's own code, and reports read from them by the report's
// own code, without a store: for the benches of the read side past the sizes the MongoDB stand-in
// holds (bench:sketch-reads, bench:sums). All from this checkout's services/events/dist.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
/** The build these pages and reports come from (this checkout's). */
export const DIST = path.join(root, 'services/events/dist');
const dist = (p) => require(path.join(DIST, p));
const optionalDist = (p) => {
  try {
    return dist(p);
  } catch {
    return {};
  }
};
const { buildHourPipeline } = dist('rollups/hour-pipeline');
const { FamilyTable } = dist('rollups/cell-table');
const { familyById } = dist('rollups/families');
const { writePages } = dist('rollups/page-writer');
const { LEVELS, unitId, unitSizeMs } = dist('rollups/rollup-units');
const { aggregateOf, statesOfRow } = dist('metrics/registry');
const { deviceIndex } = dist('metrics/aggregate');
const { ByteWriter } = dist('metrics/byte-codec');
const { parseReportRequest } = dist('reporting/request/parse-report-request');
const { readPlanOf } = dist('reporting/read/read-plan');
const { planReport } = dist('reporting/plan/plan-report');
const { readCells } = dist('reporting/read/cell-reads');
const { ReportGroups } = dist('reporting/read/report-groups');
const { ReportBudget } = dist('reporting/read/report-budget');
const { PageCache } = dist('reporting/read/page-cache');
const { toReportRows } = dist('reporting/read/report-rows');
// builds before the shared string table have none: their groups number strings per report
const { SharedStringIds } = optionalDist('reporting/read/string-ids');

/** The hour pipeline's `$group` (its `_id` and accumulators), evaluated below for one event at a time. */
const GROUP = buildHourPipeline(new Date(0), new Date(1))[1].$group;

function valueAt(doc, dotted) {
  let v = doc;
  for (const part of dotted.split('.')) v = v === undefined || v === null ? undefined : v[part];
  return v;
}

/** One expression of the pipeline on one event; an operator it does not know stops the bench (the pipeline changed). */
function evaluate(expr, doc) {
  if (typeof expr === 'string' && expr.startsWith('$')) return valueAt(doc, expr.slice(1));
  if (expr === null || typeof expr !== 'object' || expr instanceof Date) return expr;
  if (Array.isArray(expr)) return expr.map((e) => evaluate(e, doc));
  const keys = Object.keys(expr);
  if (keys.length === 1 && keys[0].startsWith('$')) {
    const arg = expr[keys[0]];
    switch (keys[0]) {
      case '$ifNull': {
        const v = evaluate(arg[0], doc);
        return v === undefined || v === null ? evaluate(arg[1], doc) : v;
      }
      case '$hour':
        return evaluate(arg, doc).getUTCHours();
      // accumulators over a group of one event
      case '$sum':
      case '$max':
      case '$min':
        return evaluate(arg, doc);
      default:
        throw new Error(`the hour pipeline uses ${keys[0]}, which cell-pages.mjs cannot evaluate`);
    }
  }
  const out = {};
  for (const k of keys) {
    const v = evaluate(expr[k], doc);
    // a missing field is left out of an expression object, as MongoDB does
    if (v !== undefined) out[k] = v;
  }
  return out;
}

/** The hour pipeline's row for one event (a group of one): what readHourRow reads. */
function rowOfEvent(event) {
  return evaluate(GROUP, event);
}

/**
 * Each aggregate of `family` stores the same bytes from an event's row (the builder's path here)
 * as from `add` on the raw event (the reference the pipelines are tested against): else the
 * evaluator above went wrong. Throws on the first difference.
 */
export function checkRows(events, familyId) {
  for (const name of familyById(familyId).aggregates) {
    const aggregate = aggregateOf(name);
    for (const event of events) {
      const a = new ByteWriter(64, 0);
      const b = new ByteWriter(64, 0);
      aggregate.write(a, aggregate.fromRow(rowOfEvent(event)));
      aggregate.write(b, aggregate.add(aggregate.empty(), event));
      if (Buffer.compare(Buffer.from(a.bytes()), Buffer.from(b.bytes())) !== 0)
        throw new Error(`aggregate ${name}: the row of event ${event._id} stores other bytes than add()`);
    }
  }
}

/** The units a report over [from, to) reads when every unit is built (the planner's own walk). */
export function rangeUnits(from, to) {
  const built = new Map();
  for (const level of LEVELS) {
    const size = unitSizeMs(level);
    for (let start = Math.floor(from / size) * size; start < to; start += size) {
      const unit = { level, start };
      built.set(unitId(unit), { unit, g: `${unitId(unit)}@1` });
    }
  }
  const plan = planReport([{ start: from, end: to }], { built });
  if (plan.raw.length > 0) throw new Error('the range is not whole units');
  return plan.rollup.map((step) => ({ ...step, end: step.unit.start + unitSizeMs(step.unit.level) }));
}

/**
 * One owner's cells of one family per unit, built as the builder builds them (rows merged into a
 * FamilyTable, no cap), then stored with the real page writer. `add(event)` files an event under
 * its unit; `pages()` writes every unit's pages and returns them by `_id`.
 */
export function ownerPages(owner, familyId, units) {
  const family = familyById(familyId);
  const tables = units.map(() => new FamilyTable(family, Infinity));
  return {
    add(event) {
      const t = event.created.getTime();
      const u = units.findIndex((unit) => t >= unit.unit.start && t < unit.end);
      if (u < 0) return;
      const row = rowOfEvent(event);
      tables[u].addRow(
        row._id.n,
        family.dimensions.map((d) => row._id[d]),
        statesOfRow(row),
        deviceIndex(row._id.d),
      );
    },
    pages() {
      const byId = new Map();
      units.forEach((unit, u) => {
        for (const doc of writePages(unit.g, owner, family, tables[u].sorted())) byId.set(doc._id, doc);
        tables[u] = undefined;
      });
      return byId;
    },
  };
}

/** Encoded bytes of these columns (and the page keys) over the pages. */
export function columnBytes(pages, columns) {
  let n = 0;
  for (const doc of pages.values()) for (const c of ['k', ...columns]) n += doc[c]?.position ?? 0;
  return n;
}

const NO_CACHE = { get: () => undefined, put: () => undefined, note: () => undefined };
const UNBOUNDED = { deadlineMs: 1e9, perQueryMs: 1e9 };

/**
 * A report (its request body) answered from `pages` by the report's own read of rollup pages
 * (readCells: the first pages of every unit, the further pages, each decoded and merged into the
 * groups), then its rows (toReportRows). `run({ cached })`: with `cached`, from a decoded-page cache
 * that already holds every page (what a repeated report over finished units reads); without, every
 * page decoded again; `groups`: a class standing in for ReportGroups (bench:merge-threads keeps
 * some groups only). `units`: the units read (default: those the planner takes for the range).
 */
export function cellReport(body, pages, units) {
  const query = parseReportRequest(body, { maxRangeDays: 400 });
  const plan = readPlanOf(query);
  units ??= rangeUnits(query.range.from.getTime(), query.range.to.getTime() + 1);
  const store = {
    // every generation here is usable (no manifest to check), and none is of an older format
    usablePages: async (ids) => ({ docs: ids.map((id) => pages.get(id)).filter(Boolean), missing: [], legacy: [] }),
    // the totals' first pages witness the family's: every unit here has them
    existing: async (ids) => ids,
  };
  const cache = new PageCache(Number.MAX_SAFE_INTEGER);
  // one beside the page cache, as the reporting process holds them
  const strings = SharedStringIds ? new SharedStringIds() : undefined;
  const run = async ({ cached = false, groups: Groups = ReportGroups } = {}) => {
    const table = cached ? strings?.forReport() : undefined;
    const groups = new Groups(plan.aggregates, Infinity, false, Infinity, plan.ask, table);
    await readCells(plan, units, groups, new ReportBudget(undefined, UNBOUNDED), store, cached ? cache : NO_CACHE);
    return { rows: toReportRows(groups.groups(), plan), groupBytes: groups.bytes };
  };
  return { plan, units, run };
}
