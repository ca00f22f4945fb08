import type { ReportRow } from '../../src/reporting/read/report-rows';
import type { ReportQuery } from '../../src/reporting/request/report-query';
import { formatZoned } from '../../src/reporting/request/time-zone';
import type { EventDocument } from '../../src/storage/event-document';

/**
 * The events of each row a report query defines, found here without the report code (filters,
 * range, bots, series buckets in the query's zone, group fields): what differential tests compare
 * answers against. Keyed like rowKey.
 */
export function eventsByRow(events: readonly EventDocument[], query: ReportQuery): Map<string, EventDocument[]> {
  const out = new Map<string, EventDocument[]>();
  const zone = query.timeZone ?? 'UTC';
  for (const e of events) {
    const t = e.created.getTime();
    if (e.owner_id !== query.ownerId || e.bot) continue;
    if (query.names && !query.names.includes(e.name)) continue;
    if (query.urls && !query.urls.includes(e.url)) continue;
    if (query.contentIds && !query.contentIds.includes(e.content_id)) continue;
    if (query.deviceTypes && !query.deviceTypes.includes(e.device_type)) continue;
    if (query.range.from && t < query.range.from.getTime()) continue;
    if (query.range.to && t > query.range.to.getTime()) continue;
    let time: string | undefined;
    if (query.series) {
      const bucket = query.series.find((b) => b.start <= t && t < b.end);
      if (!bucket) continue;
      time = formatZoned(zone, bucket.time);
    }
    const key = rowKey({
      time,
      name: e.name,
      content_id: query.groupBy.includes('content_id') ? e.content_id : undefined,
      url: query.groupBy.includes('url') ? e.url : undefined,
    });
    const list = out.get(key);
    if (list) list.push(e);
    else out.set(key, [e]);
  }
  return out;
}

export function rowKey(row: Pick<ReportRow, 'time' | 'name' | 'content_id' | 'url'>): string {
  return JSON.stringify([row.time ?? null, row.name, row.content_id ?? null, row.url ?? null]);
}
