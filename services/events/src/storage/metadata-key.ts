/**
 * Metadata keys come from arbitrary query parameter names, but MongoDB field names must not start
 * with `$`, contain `.` or contain NUL, and `__proto__` does not survive a trip through plain
 * JavaScript objects (JSON validation, the BSON decoder). Rather than dropping such keys (losing
 * data) or replacing characters (so `a.b` and `a_b` would collide), they are percent-escaped:
 * `%` -> `%25`, `.` -> `%2E`, NUL -> `%00`, a leading `$` -> `%24`, and the key `__proto__`
 * -> `%5F_proto__`. Since every `%` of the original is escaped, the mapping is reversible and
 * collision-free: reporting encodes a requested key with `encodeMetadataKey` to find it and
 * answers under the name the caller used.
 */
const UNSAFE = /[%.\0]/g;
const ESCAPES: Record<string, string> = { '%': '%25', '.': '%2E', '\0': '%00' };

export function encodeMetadataKey(key: string): string {
  if (key === '__proto__') return '%5F_proto__';
  const escaped = key.replace(UNSAFE, (c) => ESCAPES[c] ?? c);
  return escaped.startsWith('$') ? `%24${escaped.slice(1)}` : escaped;
}
