import type { ReportRow } from '../../src/reporting/read/report-row';
import type { ReportQuery } from '../../src/reporting/request/report-query';
import { formatZoned } from '../../src/storage/zone-clock';
import { shownValue, type Dimension } from '../../src/storage/dimensions';
import type { EventDocument } from '../../src/storage/event-document';

/** An event's stored value of a dimension ("" when it has none). */
function valueOf(e: EventDocument, dimension: Dimension): string {
  const v = (e as unknown as Record<string, unknown>)[dimension];
  return typeof v === 'string' ? v : '';
}

/**
 * The events of each row a report query defines, found here without the report code (filters,
 * range, bots, series buckets in the query's zone, group fields): what differential tests compare
 * answers against. Keyed like rowKey.
 */
export function eventsByRow(events: readonly EventDocument[], query: ReportQuery): Map<string, EventDocument[]> {
  const out = new Map<string, EventDocument[]>();
  const zone = query.timeZone ?? 'UTC';
  const filters = Object.entries(query.filters) as Array<[Dimension, string[]]>;
  for (const e of events) {
    const t = e.created.getTime();
    if (e.owner_id !== query.ownerId || e.bot) continue;
    if (query.names && !query.names.includes(e.name)) continue;
    if (filters.some(([dimension, values]) => !values.includes(valueOf(e, dimension)))) continue;
    if (query.deviceTypes && !query.deviceTypes.includes(e.device_type)) continue;
    if (query.range.from && t < query.range.from.getTime()) continue;
    if (query.range.to && t > query.range.to.getTime()) continue;
    let time: string | undefined;
    if (query.series) {
      const bucket = query.series.find((b) => b.start <= t && t < b.end);
      if (!bucket) continue;
      time = formatZoned(zone, bucket.time);
    }
    const row: Record<string, string | undefined> = { time, name: e.name };
    for (const dimension of query.groupBy) row[dimension] = shownValue(dimension, valueOf(e, dimension));
    const key = rowKey(row as ReportRow, query.groupBy);
    const list = out.get(key);
    if (list) list.push(e);
    else out.set(key, [e]);
  }
  return out;
}

/** A row's identity: its time, name and group_by values. */
export function rowKey(
  row: Pick<ReportRow, 'time' | 'name'> & Record<string, unknown>,
  groupBy: readonly Dimension[],
): string {
  return JSON.stringify([row.time ?? null, row.name, ...groupBy.map((d) => row[d] ?? null)]);
}
