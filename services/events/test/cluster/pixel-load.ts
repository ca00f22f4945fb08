import type { PixelHit } from './load-summary';

export interface PixelLoadOptions {
  /** Events API base URL. */
  baseUrl: string;
  ownerId: string;
  /** Requests per second, sent on a fixed schedule whatever the answers (open loop, like browsers). */
  rate: number;
  /** Requests still unanswered after this are counted as status 0. */
  timeoutMs?: number;
  /** A desktop browser's User-Agent, so the hits are counted (not bots). */
  userAgent: string;
}

export interface PixelLoad {
  /** Stops sending and resolves with every request once the last answer (or timeout) is in. */
  stop(): Promise<PixelHit[]>;
  /** The requests answered (or timed out) so far, while the load goes on. */
  answered(): readonly PixelHit[];
  /** Milliseconds since the load began. */
  elapsedMs(): number;
}

/**
 * Steady pixel traffic, each request with its own content_id (`<prefix><seq>`), so that a report
 * grouped by content_id shows whether every acknowledged event was counted exactly once.
 */
export function startPixelLoad(opts: PixelLoadOptions, prefix = 'k'): PixelLoad {
  const t0 = performance.now();
  const elapsedMs = () => performance.now() - t0;
  const hits: PixelHit[] = [];
  const inFlight = new Set<Promise<void>>();
  let seq = 0;
  const send = () => {
    const n = ++seq;
    const contentId = `${prefix}${n}`;
    const startMs = elapsedMs();
    const query = new URLSearchParams({
      owner_id: opts.ownerId,
      name: 'impression',
      content_id: contentId,
      url: 'https://pub.example/cluster',
    });
    const p = fetch(`${opts.baseUrl}/v1/v.gif?${query}`, {
      headers: { 'user-agent': opts.userAgent },
      signal: AbortSignal.timeout(opts.timeoutMs ?? 10_000),
    })
      .then(async (res) => {
        await res.arrayBuffer();
        return res.status;
      })
      .catch(() => 0)
      .then((status) => {
        hits.push({ seq: n, contentId, startMs, endMs: elapsedMs(), status });
      });
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  };
  // a tick every 10 ms sends what the schedule owes by then: steady despite timer jitter
  const timer = setInterval(() => {
    const due = Math.floor((elapsedMs() / 1000) * opts.rate);
    while (seq < due) send();
  }, 10);
  return {
    elapsedMs,
    answered: () => hits,
    async stop() {
      clearInterval(timer);
      await Promise.all([...inFlight]);
      return hits;
    },
  };
}
