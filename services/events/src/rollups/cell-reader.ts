import type { GroupCount } from '../reporting/count-source';
import type { ReportQuery } from '../reporting/report-query';
import { encodeMetadataKey } from '../storage/metadata-key';
import type { CellDocument, CoarseEntry, FineEntry } from './cell-document';
import { DEVICE_ORDER, laterOf, type DeviceCounts, type DeviceLatest, type Latest } from './cell-table';

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
  storedKeys: string[];
}

export function cellQueryOf(query: ReportQuery): CellQuery {
  const fine = query.groupBy.length > 0 || query.urls !== undefined || query.contentIds !== undefined;
  return {
    kind: fine ? 'f' : 'c',
    names: query.names ? new Set(query.names) : undefined,
    urls: query.urls ? new Set(query.urls) : undefined,
    contentIds: query.contentIds ? new Set(query.contentIds) : undefined,
    devices: query.deviceTypes ? DEVICE_ORDER.flatMap((d, i) => (query.deviceTypes!.includes(d) ? [i] : [])) : [0, 1, 2],
    groupBy: query.groupBy,
    storedKeys: query.metadataKeys.map(encodeMetadataKey),
  };
}

/**
 * The report groups one cell document contributes: entries filtered like the raw `$match`, the
 * selected devices' counts summed and their latest events compared. An entry with no matching
 * event contributes nothing, exactly as raw events would not form a group.
 */
export function* groupsOfCells(doc: CellDocument, q: CellQuery): Generator<GroupCount> {
  if (doc.k !== q.kind) return;
  if (doc.k === 'f') {
    const name = doc.n ?? '';
    if (q.names && !q.names.has(name)) return;
    const entries = JSON.parse(doc.e) as FineEntry[];
    const latest = doc.l === undefined ? undefined : (JSON.parse(doc.l) as DeviceLatest[]);
    for (let i = 0; i < entries.length; i++) {
      const [contentId, url, counts] = entries[i]!;
      if (q.urls && !q.urls.has(url)) continue;
      if (q.contentIds && !q.contentIds.has(contentId)) continue;
      const group = toGroup(name, counts, latest?.[i], q);
      if (!group) continue;
      for (const field of q.groupBy) group[field] = field === 'url' ? url : contentId;
      yield group;
    }
    return;
  }
  const entries = JSON.parse(doc.e) as CoarseEntry[];
  const latest = doc.l === undefined ? undefined : (JSON.parse(doc.l) as DeviceLatest[]);
  for (let i = 0; i < entries.length; i++) {
    const [name, counts] = entries[i]!;
    if (q.names && !q.names.has(name)) continue;
    const group = toGroup(name, counts, latest?.[i], q);
    if (group) yield group;
  }
}

/** `latest` is absent when the report asked for no metadata (the store did not send it). */
function toGroup(name: string, counts: DeviceCounts, latest: DeviceLatest | undefined, q: CellQuery): GroupCount | undefined {
  let value = 0;
  let newest: Latest | null = null;
  for (const d of q.devices) {
    value += counts[d]!;
    if (latest) newest = laterOf(newest, latest[d]!);
  }
  if (value === 0) return undefined;
  const group: GroupCount = { name, value };
  if (q.storedKeys.length > 0 && newest) {
    const metadata = newest[2];
    group.latest = {
      created: new Date(newest[0]),
      id: newest[1],
      metadata: q.storedKeys.map((key) => (Object.hasOwn(metadata, key) && typeof metadata[key] === 'string' ? metadata[key] : '')),
    };
  }
  return group;
}
