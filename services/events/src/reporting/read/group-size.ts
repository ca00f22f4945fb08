import type { LatestEvent } from './count-source';

/**
 * What one merged group costs the process, roughly, beyond its strings: the Map entry, the group
 * object, its key string's header and the headers of the field strings. Measured on Node 20:
 * a group with a 40-character url holds about 380 bytes in all.
 */
export const GROUP_OVERHEAD_BYTES = 240;

/** The latest event kept for metadata: its object, the Date, the id string, the values array. */
export const LATEST_OVERHEAD_BYTES = 200;

/** The measures' counts and sums of a group: an array of six numbers. */
export const SUMS_BYTES = 80;

/** Per metadata value: the string header and its array slot. */
const VALUE_OVERHEAD_BYTES = 24;

/**
 * Estimated bytes the groups of one report may hold. An outsider can send a victim's pixel
 * 200,000 distinct 2 KB urls in minutes: ranked, those would take about 1 GB, past a 768 MiB
 * pod. At 96 MiB a report stops near 100 MB in the worst case, so a few reports at once fit
 * next to the service itself, while 200,000 groups of short urls (REPORT_MAX_RANKED_GROUPS)
 * still fit. Every character counts once in the group key and once in its field: an upper
 * bound for one-byte strings (V8 may share them) and the real size of two-byte ones.
 */
export const MAX_GROUP_BYTES = 96 * 1024 * 1024;

/** The estimated size of one new group: key and fields, plus its latest event when metadata was asked for. */
export function groupBytes(
  keyLength: number,
  name: string,
  contentId: string | undefined,
  url: string | undefined,
  latest?: LatestEvent,
): number {
  return (
    GROUP_OVERHEAD_BYTES + keyLength + name.length + (contentId?.length ?? 0) + (url?.length ?? 0) + latestBytes(latest)
  );
}

export function latestBytes(latest: LatestEvent | undefined): number {
  if (!latest) return 0;
  let bytes = LATEST_OVERHEAD_BYTES + latest.id.length;
  for (const value of latest.metadata) bytes += VALUE_OVERHEAD_BYTES + value.length;
  return bytes;
}
