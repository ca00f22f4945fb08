/** `YYYY-mm-dd HH:MM:SS` in UTC, the timestamp form the APIs use. */
export function formatUtcDateTime(d: Date): string {
  return d.toISOString().slice(0, 19).replace('T', ' ');
}
