import { aggregateOf, type AggregateName } from '../../metrics/registry';
import { GenerationGoneError, type CellStore } from '../../rollups/cell-store';
import { DamagedPagesError, decodeOrDamaged, type DamagedPage } from '../../rollups/damaged-pages';
import { DecodedPage, readsVisitorSets, visitorDictionary } from '../../rollups/page-reader';
import { pageId, parsePageId, VISITORS_COLUMN, VISITORS_FAMILY } from '../../rollups/page-layout';
import { ZONE_DAY_FAMILIES } from '../../rollups/zone-days';
import type { RollupStep } from '../plan/plan-report';
import type { PageCache } from './page-cache';
import type { ReadPlan } from './read-plan';
import type { ReportBudget } from './report-budget';
import type { ReportGroups } from './report-groups';
import { pageStringIds } from './string-ids';

/** The family every owner with events in a unit has pages in (families.ts). */
const TOTALS = 't';

/**
 * Units the report cannot use: the owner passed the family's cell cap there, or the unit's
 * generation has no manifest (`reset`: broken, if a mark points at it) or is of a page format
 * this release does not read (never reset: it may not be rebuildable; the builder converts it).
 * The report plans again without them, reading their spans from smaller units or raw events.
 */
export class UnitNotUsableError extends Error {
  constructor(
    readonly generations: readonly string[],
    readonly reset: readonly string[] = [],
  ) {
    super(`rollup units not usable for this report: ${generations.slice(0, 3).join(', ')}`);
  }
}

/**
 * The rollup side of a report: the first page of the owner's family in every planned unit (one
 * query for all of them, the decoded-page cache first, with the check of the planned
 * generations' manifests: one store call), then the further pages they announce,
 * each merged into the groups: its entries filtered as the raw `$match` would filter events, the
 * selected devices' states merged per group. An owner without events in a unit has no page there.
 * A page that does not decode (damaged, or of another format) is never merged: DamagedPagesError
 * names every such page the read met, for the caller to contain and plan again without.
 * Returns the planned generations in which the owner has no page: only of those can the read not
 * tell an owner without events from a generation dropped mid-read (a rebuild), so only they need
 * the check that their unit still points at them.
 */
export async function readCells(
  plan: ReadPlan,
  steps: readonly RollupStep[],
  groups: ReportGroups,
  budget: ReportBudget,
  store: CellStore,
  cache: PageCache,
): Promise<Set<string>> {
  const family = plan.family;
  if (!family || steps.length === 0) return new Set();
  // a zone day keeps only some families: a first page of another would be missing as if the
  // owner had no events there (the planner never plans one for such a family: rollup-coverage.ts)
  if (!ZONE_DAY_FAMILIES.includes(family.id) && steps.some((s) => s.unit.zone !== undefined))
    throw new Error(`a zone day was planned for family '${family.id}', which zone days do not keep`);
  const owner = plan.query.ownerId;
  const timeOf = new Map(steps.map((s) => [s.g, s.time]));
  const first = steps.map((s) => pageId(s.g, owner, family.id, 0));
  const cached = fromCache(first, plan, cache);
  // every family of an owner with events in a UTC unit has a first page: the totals' first page
  // witnesses the others, so a lost page is told apart from an owner without events there (a zone
  // day, which keeps the totals alone, is never read here for another family: checked above). A
  // first page found in the cache is found: its generation needs no witness (the answer would be
  // the same), so a report whose first pages are all cached makes no store call here
  const witnesses =
    family.id === TOTALS ? [] : cached.missing.map((id) => pageId(parsePageId(id)!.g, owner, TOTALS, 0));
  const [pages, witnessed] = await Promise.all([
    loadPages(cached, plan, budget, store, cache, true),
    witnesses.length > 0 ? budget.run(() => store.existing(witnesses, budget.remainingMs())) : Promise.resolve([]),
  ]);
  const found = new Set(pages.map((p) => p.doc.g));
  const lost = witnessed.map((id) => parsePageId(id)!.g).filter((g) => !found.has(g));
  if (lost.length > 0) throw new GenerationGoneError(lost);
  const over = pages.filter((p) => p.doc.over).map((p) => p.doc.g);
  if (over.length > 0) throw new UnitNotUsableError(over);
  const more: string[] = [];
  for (const page of pages)
    for (let p = 1; p < (page.doc.x ?? 1); p++) more.push(pageId(page.doc.g, owner, family.id, p));
  const rest = more.length > 0 ? await loadPages(fromCache(more, plan, cache), plan, budget, store, cache) : [];
  if (rest.length !== more.length) {
    // a page its first page announces is gone: the generation is broken (or was dropped mid-read)
    const have = new Set(rest.map((p) => p.doc._id));
    throw new GenerationGoneError([...new Set(more.filter((id) => !have.has(id)).map((id) => parsePageId(id)!.g))]);
  }
  for (const page of [...pages, ...rest]) mergePage(page, timeOf.get(page.doc.g), plan, groups);
  // a generation with a first page was read whole (every page it announces was found, and pages
  // never change), whether or not a rebuild replaced it since
  return new Set(steps.map((s) => s.g).filter((g) => !found.has(g)));
}

/** Pages looked up in the decoded-page cache: those found with the plan's columns decoded, and the ids of the rest. */
interface CachedPages {
  ids: readonly string[];
  found: DecodedPage[];
  missing: string[];
}

/** The cache's part of a load, at once (no store call): which pages of these ids it has with the plan's columns. */
function fromCache(ids: readonly string[], plan: ReadPlan, cache: PageCache): CachedPages {
  const found: DecodedPage[] = [];
  const missing: string[] = [];
  for (const id of ids) {
    const page = cache.get(id);
    if (page && plan.aggregates.every((a) => page.has(a, !plan.ask.allDevices, keptEntries(page, plan))))
      found.push(page);
    else missing.push(id);
  }
  return { ids, found, missing };
}

/**
 * The pages of these ids with the plan's columns decoded: cached (`cached`, fromCache), or read
 * (only what is missing) and cached; with `checkGenerations` (first pages), the read checks the
 * generations of the pages it reads too (UnitNotUsableError).
 */
async function loadPages(
  cached: CachedPages,
  plan: ReadPlan,
  budget: ReportBudget,
  store: CellStore,
  cache: PageCache,
  checkGenerations = false,
): Promise<DecodedPage[]> {
  const { ids, missing } = cached;
  const out = [...cached.found];
  if (missing.length === 0) {
    cache.note(out.length, 0);
    return out;
  }
  // a generation whose first page is cached was checked when that page was read, and a
  // generation's manifest never changes (it goes only with the whole generation; cached pages
  // stay its true content): only the generations of pages read now are checked
  const unchecked = checkGenerations ? [...new Set(missing.map((id) => parsePageId(id)!.g))] : [];
  // the visitor dictionaries of the missing pages' units (on each first totals page), read
  // beside them: a totals page 0 read here brings its own
  const visitors = readsVisitorSets(plan.columns);
  const own = plan.family!.id === VISITORS_FAMILY;
  const columns = visitors && own ? [...plan.columns, VISITORS_COLUMN] : plan.columns;
  const dictionaryIds = visitors
    ? [...new Set(missing.map((id) => parsePageId(id)!))]
        .filter((at) => !own || !missing.includes(pageId(at.g, at.owner, VISITORS_FAMILY, 0)))
        .map((at) => pageId(at.g, at.owner, VISITORS_FAMILY, 0))
    : [];
  const [read, dictionaryDocs] = await Promise.all([
    budget.run(() => store.usablePages(missing, columns, unchecked, budget.remainingMs())),
    dictionaryIds.length > 0
      ? budget
          .run(() => store.usablePages([...new Set(dictionaryIds)], [VISITORS_COLUMN], [], budget.remainingMs()))
          .then((r) => r.docs)
      : Promise.resolve([]),
  ]);
  if (read.missing.length + read.legacy.length > 0)
    throw new UnitNotUsableError([...read.missing, ...read.legacy], read.missing);
  const damaged: DamagedPage[] = [];
  // decoded by the first page that needs it (a page whose sets keep their hashes never does)
  const dictionaries = new Map<string, () => Float64Array>();
  for (const doc of visitors ? [...dictionaryDocs, ...read.docs] : []) {
    if (doc.f !== VISITORS_FAMILY || doc.p !== 0 || doc[VISITORS_COLUMN] === undefined) continue;
    let decoded: Float64Array | undefined;
    dictionaries.set(doc.g, () => (decoded ??= visitorDictionary(doc)!));
  }
  for (const doc of read.docs) {
    let page = cache.get(doc._id);
    const failed = decodeOrDamaged(doc._id, () => {
      page ??= new DecodedPage(doc);
      page.visitors = dictionaries.get(doc.g);
      // large states (visitor samples) are decoded only for the entries the report keeps
      const kept = keptEntries(page, plan);
      for (const name of plan.aggregates) page.load(name, !plan.ask.allDevices, doc, (s) => sizeOf(name, s), kept);
      // the cached page keeps its decoded states, not the totals page the dictionary came from
      page.visitors = undefined;
    });
    if (failed) {
      if (!damaged.some((d) => d.g === failed.g && d.family === failed.family && d.page === failed.page))
        damaged.push(failed);
    } else {
      cache.put(doc._id, page!);
      out.push(page!);
    }
  }
  cache.note(ids.length - missing.length, read.docs.length);
  // every page of this read is looked at first, so one report finds all the damage it meets
  if (damaged.length > 0) throw new DamagedPagesError(damaged);
  return out;
}

function sizeOf(name: AggregateName, state: unknown): number {
  return aggregateOf(name).bytes(state);
}

/**
 * Every entry of a page the report keeps, merged into its group. The page's names and the strings
 * its entries group by have numbers in the report's string table (string-ids.ts: looked up once
 * per page and table, kept with the page), so an entry finds its group by a key packed from
 * numbers rather than by its urls' text.
 */
function mergePage(page: DecodedPage, time: number | undefined, plan: ReadPlan, groups: ReportGroups): void {
  const { aggregates, groupKeyAt } = plan;
  const allDevices = plan.ask.allDevices;
  const kept = keptEntries(page, plan);
  // the page's names and the strings it groups by, by number: looked up once per page and string
  // table (most reports find them kept with a cached page)
  const { names: nameIds, strings: stringIds } = pageStringIds(page, groups.strings, groupKeyAt);
  const ids = new Array<number>(groupKeyAt.length).fill(0);
  // each aggregate's states of the page: its union when the report counts every device, else per device
  const states = aggregates.map((name) =>
    allDevices && aggregateOf(name).storage !== 'perDevice'
      ? { folded: page.foldedStates(name), devices: undefined }
      : { folded: undefined, devices: page.deviceStates(name) },
  );
  const dims = page.dims;
  for (let i = 0; i < page.count; i++) {
    if (!kept(i)) continue;
    const present = page.mask[i]! & plan.deviceMask;
    const nameIndex = page.nameOf[i]!;
    for (let j = 0; j < groupKeyAt.length; j++) ids[j] = stringIds[page.keyOf[i * dims + groupKeyAt[j]!]!]!;
    const key = groups.key(time, nameIds[nameIndex]!, ids);
    const slot =
      groups.find(key) ??
      groups.create(
        key,
        time,
        page.names[nameIndex]!,
        groupKeyAt.map((k) => page.strings[page.keyOf[i * dims + k]!]!),
      );
    for (let a = 0; a < states.length; a++) {
      const { folded, devices } = states[a]!;
      if (folded) groups.merge(slot, a, folded[i]);
      else for (let d = 0; d < 3; d++) if (present & (1 << d)) groups.merge(slot, a, devices![3 * i + d]);
    }
  }
}

/**
 * The entries of a page a report keeps, as its raw `$match` keeps events: on a counted device, of
 * a counted name, with each filtered dimension's value among the given ones. Worked out once per
 * page and report (a page's strings may number thousands): the loads and the merge ask it again.
 */
function keptEntries(page: DecodedPage, plan: ReadPlan): (i: number) => boolean {
  let byPage = KEPT.get(plan);
  if (!byPage) KEPT.set(plan, (byPage = new WeakMap()));
  let kept = byPage.get(page);
  if (!kept) byPage.set(page, (kept = keptBitmap(page, plan)));
  const bits = kept;
  return (i) => bits[i] === 1;
}

/** Per read plan (one report), per page: which entries it keeps. */
const KEPT = new WeakMap<ReadPlan, WeakMap<DecodedPage, Uint8Array>>();

function keptBitmap(page: DecodedPage, plan: ReadPlan): Uint8Array {
  const names = plan.names ? page.names.map((n) => plan.names!.has(n)) : undefined;
  const keyOk = plan.keyFilters.map((filter) => (filter ? page.strings.map((s) => filter.has(s)) : undefined));
  const dims = page.dims;
  const out = new Uint8Array(page.count);
  for (let i = 0; i < page.count; i++) {
    if ((page.mask[i]! & plan.deviceMask) === 0) continue;
    if (names && !names[page.nameOf[i]!]) continue;
    let kept = true;
    for (let k = 0; k < keyOk.length && kept; k++)
      kept = keyOk[k] === undefined || keyOk[k]![page.keyOf[i * dims + k]!]!;
    if (kept) out[i] = 1;
  }
  return out;
}
