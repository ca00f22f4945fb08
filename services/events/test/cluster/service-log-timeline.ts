export interface LogEntryGroup {
  level: string;
  /** The log message with its reason, status or error: what an operator would search for. */
  what: string;
  count: number;
  /** First and last occurrence, ms since the load began (negative: before it). */
  firstMs: number;
  lastMs: number;
}

/**
 * Pure: groups a service's JSON log lines of level warn/error (and the debug lines that give a
 * pixel 503's reason) by what they say, with when each first and last appeared.
 */
export function serviceLogTimeline(output: string, startWallMs: number): LogEntryGroup[] {
  const groups = new Map<string, LogEntryGroup>();
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue;
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue;
    }
    const level = String(entry.level);
    const notStored = entry.message === 'pixel event not stored';
    if (level !== 'warn' && level !== 'error' && !notStored) continue;
    const detail = entry.reason ?? entry.status ?? entry.error;
    const what = `${String(entry.message)}${detail === undefined ? '' : `: ${String(detail)}`}`;
    const at = Date.parse(String(entry.timestamp)) - startWallMs;
    const key = `${level} ${what}`;
    const group = groups.get(key);
    if (group) {
      group.count += 1;
      group.firstMs = Math.min(group.firstMs, at);
      group.lastMs = Math.max(group.lastMs, at);
    } else {
      groups.set(key, { level, what, count: 1, firstMs: at, lastMs: at });
    }
  }
  return [...groups.values()].sort((a, b) => a.firstMs - b.firstMs);
}
