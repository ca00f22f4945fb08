/** One pixel request of a load run: when it started and ended (ms since the run began) and its status (0: no answer). */
export interface PixelHit {
  seq: number;
  contentId: string;
  startMs: number;
  endMs: number;
  status: number;
}

export interface LoadSummary {
  total: number;
  ok: number;
  /** Share of requests answered 200 (0..1). */
  okShare: number;
  byStatus: Record<string, number>;
  /** Longest run of consecutive requests (in start order) not answered 200: from the first one's start to the last one's end. */
  longestOutageMs: number;
  /** When that run began (ms since the run began), or -1 without one. */
  longestOutageAtMs: number;
  /** Latency of the answered requests: 99th percentile and the slowest (ms). */
  p99LatencyMs: number;
  maxLatencyMs: number;
}

/** Pure: what a load run looked like from the client's side (the failover goal: >= 99 % answered 200). */
export function summarizeLoad(hits: PixelHit[]): LoadSummary {
  const sorted = [...hits].sort((a, b) => a.startMs - b.startMs || a.seq - b.seq);
  const byStatus: Record<string, number> = {};
  let longest = 0;
  let longestAt = -1;
  let runStart: PixelHit | undefined;
  let runEnd = 0;
  for (const hit of sorted) {
    byStatus[String(hit.status)] = (byStatus[String(hit.status)] ?? 0) + 1;
    if (hit.status === 200) {
      runStart = undefined;
      continue;
    }
    runStart ??= hit;
    runEnd = Math.max(runStart === hit ? hit.endMs : runEnd, hit.endMs);
    if (runEnd - runStart.startMs > longest) {
      longest = runEnd - runStart.startMs;
      longestAt = runStart.startMs;
    }
  }
  const ok = byStatus['200'] ?? 0;
  const latencies = sorted.map((h) => h.endMs - h.startMs).sort((a, b) => a - b);
  const p99 =
    latencies.length === 0 ? 0 : latencies[Math.min(latencies.length - 1, Math.ceil(latencies.length * 0.99) - 1)]!;
  return {
    total: hits.length,
    ok,
    okShare: hits.length === 0 ? 0 : ok / hits.length,
    byStatus,
    longestOutageMs: Math.round(longest),
    longestOutageAtMs: Math.round(longestAt),
    p99LatencyMs: Math.round(p99),
    maxLatencyMs: Math.round(latencies.at(-1) ?? 0),
  };
}

export interface CountCheck {
  /** Acknowledged (200) but not in the report. */
  lost: string[];
  /** In the report more than once. */
  duplicated: string[];
}

/** Pure: every acknowledged content id must be counted exactly once; nothing may be counted twice. */
export function checkCounts(acknowledged: Iterable<string>, counted: Map<string, number>): CountCheck {
  const lost: string[] = [];
  for (const id of acknowledged) if ((counted.get(id) ?? 0) === 0) lost.push(id);
  const duplicated = [...counted].filter(([, n]) => n > 1).map(([id]) => id);
  return { lost, duplicated };
}
