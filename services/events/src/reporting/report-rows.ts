import type { GroupCount } from './count-source';
import type { ReportQuery } from './report-query';

/** One element of the response array (spec 4.8). */
export interface ReportRow {
  name: string;
  content_id?: string;
  url?: string;
  value: number;
  metadata?: Record<string, string>;
}

/** Shapes merged groups into the response: grouped fields as requested, metadata under the caller's keys, sorted by name then the group fields. */
export function toReportRows(groups: readonly GroupCount[], query: ReportQuery): ReportRow[] {
  const rows = groups.map((group) => {
    // built in response order: name, group fields, value, metadata
    const row = { name: group.name } as ReportRow;
    for (const field of query.groupBy) row[field] = group[field] ?? '';
    row.value = group.value;
    if (query.metadataKeys.length > 0) {
      // fromEntries defines own properties, so even a key like "__proto__" is just a key
      row.metadata = Object.fromEntries(query.metadataKeys.map((key, i) => [key, group.latest?.metadata[i] ?? '']));
    }
    return row;
  });
  return rows.sort((a, b) => compare(a.name, b.name) || query.groupBy.reduce((acc, f) => acc || compare(a[f] ?? '', b[f] ?? ''), 0));
}

/** Code-unit order: stable across locales and servers. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
