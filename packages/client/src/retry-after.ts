/**
 * Retry-After is either delay-seconds or an HTTP date (RFC 9110 section 10.2.3). Returns the wait
 * in milliseconds (never negative), or undefined when the header is absent or unreadable.
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | undefined {
  if (value == null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (!/[a-z]/i.test(text)) return undefined; // "1.5", "-3": neither form
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}
