/**
 * Events live in one collection per UTC day: `<prefix>_YYYYMMDD`. Writes go to the bucket of the
 * event's `created`; reads touch only the buckets their time range covers; retention drops whole
 * buckets instead of deleting documents.
 */

export function bucketName(prefix: string, at: Date): string {
  const iso = at.toISOString();
  return `${prefix}_${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}`;
}

/** Start of the UTC day of a bucket name, or undefined when the name is not a bucket of this prefix. */
export function bucketDay(prefix: string, collectionName: string): Date | undefined {
  const m = new RegExp(`^${prefix}_(\\d{4})(\\d{2})(\\d{2})$`).exec(collectionName);
  if (!m) return undefined;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  // Date.UTC rolls 2025-13-40 over into a real date: only names it maps back to are buckets
  return Number.isNaN(d.getTime()) || bucketName(prefix, d) !== collectionName ? undefined : d;
}
