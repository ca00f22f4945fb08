import { MEASURE_NAMES } from '@cm/contracts';
import { mergeAllQuantileParts, storedQuantiles } from '../../rollups/aggregates/quantiles-aggregate';
import type { GroupCount, GroupParts, LatestEvent } from './count-source';
import type { ReportQuery } from '../request/report-query';
import { emptySketch, mergeStoredInto, type DistinctSketch } from '../../sketches/distinct-sketch';
import type { ReportAsk, SideField } from '../../rollups/aggregates/aggregate';
import {
  COARSE_KEYS,
  FINE_KEYS,
  type CellDocument,
  type CoarseEntry,
  type FineEntry,
} from '../../rollups/cell-document';
import { foldDevices } from '../../rollups/aggregates/aggregate';
import { CELL_AGGREGATES, entryIndex, sideFieldsFor } from '../../rollups/aggregates/cell-aggregates';
import { reportAsk } from './report-ask';
import { DEVICE_ORDER } from '../../rollups/cell-table';

const { counts: COUNT, latest: LATEST, sums: SUMS } = CELL_AGGREGATES;
const FINE_COUNT_AT = entryIndex('counts', FINE_KEYS);
const COARSE_COUNT_AT = entryIndex('counts', COARSE_KEYS);

/** What a report asks of cells, prepared once per report. */
export interface CellQuery {
  /** Coarse documents answer reports that neither group nor filter by content_id/url. */
  kind: 'c' | 'f';
  names?: ReadonlySet<string>;
  urls?: ReadonlySet<string>;
  contentIds?: ReadonlySet<string>;
  /** Indexes into the per-device arrays. */
  devices: number[];
  groupBy: ReportQuery['groupBy'];
  /** Stored (escaped) metadata keys, in the order of the query's keys. */
  storedKeys: readonly string[];
  /** Distinct visitors asked for. */
  uniques: boolean;
  /** Every device selected: visitors come from the folded sketches (`v`), else per device (`u`). */
  allDevices: boolean;
  /** Measure sums asked for. */
  sums: boolean;
  /** Measure quantile sketches asked for. */
  quantiles: boolean;
  /** The measures (indexes into MEASURE_NAMES) whose sketches the report needs: the others are not decoded. */
  quantileMeasures: number[];
  /** The side fields to read (the others stay on the server). */
  sides: SideField[];
}

export function cellQueryOf(query: ReportQuery): CellQuery {
  const ask: ReportAsk = reportAsk(query);
  const fine = query.groupBy.length > 0 || query.urls !== undefined || query.contentIds !== undefined;
  return {
    kind: fine ? 'f' : 'c',
    names: query.names ? new Set(query.names) : undefined,
    urls: query.urls ? new Set(query.urls) : undefined,
    contentIds: query.contentIds ? new Set(query.contentIds) : undefined,
    devices: query.deviceTypes
      ? DEVICE_ORDER.flatMap((d, i) => (query.deviceTypes!.includes(d) ? [i] : []))
      : [0, 1, 2],
    groupBy: query.groupBy,
    storedKeys: ask.metadataKeys,
    uniques: ask.uniques,
    allDevices: ask.allDevices,
    sums: ask.sums,
    quantiles: ask.quantiles,
    quantileMeasures: [
      ...new Set(
        query.measureMetrics
          .filter((m) => m.stat === 'quantile' || m.stat === 'share')
          .map((m) => MEASURE_NAMES.indexOf(m.measure)),
      ),
    ],
    sides: sideFieldsFor(ask),
  };
}

/** Where groups go: GroupAccumulator.addParts (no object per partial group unless the report asks for more than counts). */
export type GroupSink = (
  name: string,
  contentId: string | undefined,
  url: string | undefined,
  value: number,
  parts?: GroupParts,
) => void;

/** A page's side fields the report reads, parsed once per document. */
interface PageSides {
  latest?: unknown[];
  visitors?: unknown[];
  sums?: unknown[];
  quantiles?: unknown[];
}

/**
 * The report groups one cell document contributes: entries filtered like the raw `$match`, the
 * selected devices' counts summed, their latest events compared, their visitor sketches and
 * measure sums merged (only what the report asks for is read). An entry with no matching event
 * contributes nothing, exactly as raw events would not form a group.
 */
export function forEachGroup(doc: CellDocument, q: CellQuery, sink: GroupSink): void {
  if (doc.k !== q.kind) return;
  const sides: PageSides = {
    // absent when the report asked for no metadata (left on the server)
    latest: doc.l === undefined ? undefined : (JSON.parse(doc.l) as unknown[]),
    // absent when not asked for; [] on a cell written before the aggregate existed
    visitors: q.uniques ? parseSide(q.allDevices ? doc.v : doc.u) : undefined,
    sums: q.sums ? parseSide(doc.s) : undefined,
    quantiles: q.quantiles ? parseSide(doc.q) : undefined,
  };
  const withParts = q.storedKeys.length > 0 || q.uniques || q.sums || q.quantiles;
  const byContent = q.groupBy.includes('content_id');
  const byUrl = q.groupBy.includes('url');
  if (doc.k === 'f') {
    const name = doc.n ?? '';
    if (q.names && !q.names.has(name)) return;
    const entries = JSON.parse(doc.e) as FineEntry[];
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i]!;
      const [contentId, url] = entry;
      if (q.urls && !q.urls.has(url)) continue;
      if (q.contentIds && !q.contentIds.has(contentId)) continue;
      const value = valueOf(entry[FINE_COUNT_AT], q);
      if (value > 0)
        sink(
          name,
          byContent ? contentId : undefined,
          byUrl ? url : undefined,
          value,
          withParts ? partsOf(sides, i, q) : undefined,
        );
    }
    return;
  }
  const entries = JSON.parse(doc.e) as CoarseEntry[];
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    const name = entry[0];
    if (q.names && !q.names.has(name)) continue;
    const value = valueOf(entry[COARSE_COUNT_AT], q);
    if (value > 0) sink(name, undefined, undefined, value, withParts ? partsOf(sides, i, q) : undefined);
  }
}

function parseSide(text: string | undefined): unknown[] {
  return text === undefined ? [] : (JSON.parse(text) as unknown[]);
}

function partsOf(sides: PageSides, i: number, q: CellQuery): GroupParts {
  const parts: GroupParts = {};
  const latest = latestOf(sides.latest?.[i], q);
  if (latest) parts.latest = latest;
  if (sides.visitors) parts.uniques = uniquesOf(sides.visitors[i], q);
  if (sides.sums) parts.sums = foldDevices(SUMS, SUMS.decode(sides.sums[i]), q.devices);
  if (sides.quantiles) parts.quantiles = storedQuantiles(sides.quantiles[i], q.devices, q.quantileMeasures);
  return parts;
}

/** The same as GroupCount objects (tests, small callers). */
export function groupsOfCells(doc: CellDocument, q: CellQuery): GroupCount[] {
  const out: GroupCount[] = [];
  forEachGroup(doc, q, (name, contentId, url, value, parts) => {
    const { quantiles, ...rest } = parts ?? {};
    const group: GroupCount = { name, value, ...rest };
    if (quantiles) group.quantiles = mergeAllQuantileParts([quantiles]);
    if (contentId !== undefined) group.content_id = contentId;
    if (url !== undefined) group.url = url;
    out.push(group);
  });
  return out;
}

function valueOf(stored: unknown, q: CellQuery): number {
  return COUNT.answer(foldDevices(COUNT, COUNT.decode(stored), q.devices), q.storedKeys);
}

/** The newest event of the selected devices, as the requested metadata; undefined without metadata. */
function latestOf(stored: unknown, q: CellQuery): LatestEvent | undefined {
  if (stored === undefined || q.storedKeys.length === 0) return undefined;
  return LATEST.answer(foldDevices(LATEST, LATEST.decode(stored), q.devices), q.storedKeys);
}

/**
 * The visitors of the selected devices together: the folded sketch of all devices when every
 * device is selected, else each device's stored sketch merged straight into one (no decoded
 * copy per device: the hot path of reports with uniques).
 */
function uniquesOf(stored: unknown, q: CellQuery): DistinctSketch {
  let sketch = emptySketch();
  // every device: one sketch of them all (`v`)
  if (q.allDevices) return stored === undefined ? sketch : mergeStoredInto(sketch, stored);
  if (!Array.isArray(stored)) return sketch; // a cell written before visitors were recorded
  for (const d of q.devices) sketch = mergeStoredInto(sketch, stored[d]);
  return sketch;
}
