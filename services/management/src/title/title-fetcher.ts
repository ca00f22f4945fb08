import type { Logger } from '@cm/platform';
import type { TitleRequests } from '../content/content-service';
import type { ContentStore, PendingTitle } from '../content/content-store';

export interface TitleFetcherDeps {
  store: Pick<ContentStore, 'setTitle' | 'pendingTitles'>;
  /** Resolves to the page title ("" when none); the signal aborts it on stop. */
  fetchTitle(url: string, stop: AbortSignal): Promise<string>;
  logger: Logger;
  concurrency: number;
  /** Jobs waiting beyond this are not queued; they stay pending in the store and are picked up at the next start. */
  maxQueue: number;
  /** How long stop() lets in-flight fetches finish before aborting them. */
  stopGraceMs: number;
  /** Counts each fetch's outcome (metrics). */
  onOutcome?: (outcome: TitleFetchOutcome) => void;
}

type TitleFetchOutcome = 'fetched' | 'failed' | 'queue_full';

const keyOf = (job: PendingTitle) => `${job.campaign_token}/${job.token}`;

/**
 * Fetches content titles in the background with bounded concurrency. A request never waits; a
 * failure is logged (host only: query strings may hold secrets) and leaves the title "".
 */
export class TitleFetcher implements TitleRequests {
  private readonly queue: PendingTitle[] = [];
  /** Queued or running, so the start-up scan and a new request never fetch one item twice at once. */
  private readonly known = new Set<string>();
  private readonly running = new Set<Promise<void>>();
  private abort = new AbortController();
  private started = false;

  constructor(private readonly deps: TitleFetcherDeps) {}

  /** Starts taking requests and re-queues titles left pending by an earlier stop. */
  async start(): Promise<void> {
    this.abort = new AbortController();
    this.started = true;
    for (const job of await this.deps.store.pendingTitles(this.deps.maxQueue)) this.request(job);
  }

  request(job: PendingTitle): void {
    if (!this.started || this.known.has(keyOf(job))) return;
    if (this.queue.length >= this.deps.maxQueue) {
      this.deps.onOutcome?.('queue_full');
      this.deps.logger.warn('title fetch queue full; title stays pending until the next start', {
        content_token: job.token,
      });
      return;
    }
    this.known.add(keyOf(job));
    this.queue.push(job);
    this.pump();
  }

  /** Drops what is queued (it stays pending), lets running fetches finish for a bounded time, then aborts them. */
  async stop(): Promise<void> {
    this.started = false;
    for (const job of this.queue.splice(0)) this.known.delete(keyOf(job));
    const all = Promise.allSettled([...this.running]);
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), this.deps.stopGraceMs);
    });
    if ((await Promise.race([all, grace])) === 'late') this.abort.abort(new Error('stopping'));
    clearTimeout(timer);
    await all;
  }

  /** Resolves when nothing is queued or running (tests and benchmarks). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  private pump(): void {
    while (this.running.size < this.deps.concurrency && this.queue.length > 0) {
      const job = this.queue.shift()!;
      const run: Promise<void> = this.run(job).finally(() => {
        this.running.delete(run);
        this.known.delete(keyOf(job));
        this.pump();
      });
      this.running.add(run);
    }
  }

  private async run(job: PendingTitle): Promise<void> {
    const signal = this.abort.signal;
    try {
      const title = await this.deps.fetchTitle(job.url, signal);
      await this.deps.store.setTitle(job, title, 'done');
      this.deps.onOutcome?.('fetched');
    } catch (err) {
      if (signal.aborted) return; // stopped mid-fetch: stays pending for the next start
      this.deps.onOutcome?.('failed');
      this.deps.logger.warn('title fetch failed', {
        content_token: job.token,
        host: hostOf(job.url),
        error: messageOf(err),
      });
      await this.deps.store.setTitle(job, '', 'failed').catch((writeErr: unknown) => {
        this.deps.logger.error('could not record a failed title fetch', {
          content_token: job.token,
          error: messageOf(writeErr),
        });
      });
    }
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '?';
  }
}

function messageOf(err: unknown): string {
  const e = err as { code?: string; message?: string };
  return [e?.code, e?.message].filter(Boolean).join(': ') || String(err);
}
