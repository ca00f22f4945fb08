import { encodeEventBatch, eventBatchOverhead } from '@cm/contracts';
import type { JetStreamSender } from './jetstream-sender';

/** Bounds of one group-commit message (INGEST_BATCH_MAX_EVENTS / INGEST_BATCH_MAX_BYTES). */
export interface BatchLimits {
  maxEvents: number;
  /** Bytes of the whole message, envelope included. */
  maxBytes: number;
}

/**
 * The one decision of group commit: how many of the waiting events (their encoded sizes, oldest
 * first, from `start`) go into the next message. As many as fit both bounds, counting the
 * separator between events and the envelope (`overhead`), and always at least one: a single
 * event is bounded by the event limits, far below any allowed maxBytes, so it is never stuck.
 */
export function nextBatchCount(sizes: readonly number[], start: number, limits: BatchLimits, overhead: number): number {
  const available = sizes.length - start;
  if (available <= 0) return 0;
  let bytes = overhead + sizes[start]!;
  let count = 1;
  while (count < available && count < limits.maxEvents) {
    const next = bytes + 1 + sizes[start + count]!;
    if (next > limits.maxBytes) break;
    bytes = next;
    count++;
  }
  return count;
}

export interface GroupCommitOptions extends BatchLimits {
  subject: string;
  /** Messages in flight at once; events arriving while all are taken wait and go out together. */
  window: number;
  /** An event is answered within this long of its arrival: acknowledged, or failed. */
  timeoutMs: number;
  /** Events waiting for a free slot beyond which new ones are refused at once (memory bound). */
  maxWaiting: number;
  /** A new message id (the JetStream msgID of one batch). */
  newId(): string;
  /** Told about every message acknowledged: its events, bytes and publish latency. */
  onBatch?(events: number, bytes: number, seconds: number): void;
}

export class PublishRefusedError extends Error {}

interface Waiter {
  resolve(): void;
  reject(err: Error): void;
}

/**
 * Group commit on the write path. Each event is handed in already encoded; it waits until a
 * publish slot is free, then goes out in one JetStream message with every other event that
 * arrived meanwhile (at most maxEvents and maxBytes a message). An idle publisher sends a lone
 * event at the end of the current event-loop turn, so low traffic gains no latency; under load
 * the batches grow by themselves and the broker's per-message cost is paid once per batch.
 * Every event's promise settles with its message: resolved after the stream's ack, rejected when
 * the message could not be stored before its deadline (the oldest event's arrival + timeoutMs).
 */
export class GroupCommitPublisher {
  // parallel arrays, oldest first: cheaper than an object per event on the hot path
  private jsons: string[] = [];
  private sizes: number[] = [];
  private arrivals: number[] = [];
  private waiters: Waiter[] = [];
  private inFlight = 0;
  private scheduled = false;
  private drained?: () => void;

  constructor(
    private readonly sender: Pick<JetStreamSender, 'send'>,
    private readonly opts: GroupCommitOptions,
  ) {}

  /** Events waiting for a slot plus messages in flight (for metrics and shutdown). */
  get backlog(): { waiting: number; inFlight: number } {
    return { waiting: this.jsons.length, inFlight: this.inFlight };
  }

  publish(json: string): Promise<void> {
    if (this.jsons.length >= this.opts.maxWaiting)
      return Promise.reject(new PublishRefusedError('too many events waiting for the broker'));
    return new Promise((resolve, reject) => {
      this.jsons.push(json);
      this.sizes.push(Buffer.byteLength(json));
      this.arrivals.push(Date.now());
      this.waiters.push({ resolve, reject });
      if (!this.scheduled && this.inFlight < this.opts.window) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Resolves once every event handed in has been answered. */
  drain(): Promise<void> {
    if (this.jsons.length === 0 && this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => (this.drained = resolve));
  }

  private flush(): void {
    this.scheduled = false;
    this.expireWaiting(Date.now());
    while (this.inFlight < this.opts.window && this.jsons.length > 0) this.sendNext();
    this.checkDrained();
  }

  private sendNext(): void {
    const id = this.opts.newId();
    const count = nextBatchCount(this.sizes, 0, this.opts, eventBatchOverhead(id));
    const whole = count === this.jsons.length;
    const jsons = whole ? this.jsons : this.jsons.splice(0, count);
    const waiters = whole ? this.waiters : this.waiters.splice(0, count);
    const deadline = this.arrivals[0]! + this.opts.timeoutMs;
    if (whole) {
      this.jsons = [];
      this.waiters = [];
      this.sizes = [];
      this.arrivals = [];
    } else {
      this.sizes.splice(0, count);
      this.arrivals.splice(0, count);
    }
    const data = encodeEventBatch(id, jsons);
    const started = process.hrtime.bigint();
    this.inFlight++;
    this.sender.send(this.opts.subject, data, id, deadline).then(
      () => {
        this.opts.onBatch?.(waiters.length, data.length, Number(process.hrtime.bigint() - started) / 1e9);
        for (const w of waiters) w.resolve();
        this.settled();
      },
      (err: unknown) => {
        const error = err instanceof Error ? err : new Error(String(err));
        for (const w of waiters) w.reject(error);
        this.settled();
      },
    );
  }

  private settled(): void {
    this.inFlight--;
    // the events that arrived during the flight go out now, together
    if (this.jsons.length > 0) this.flush();
    else this.checkDrained();
  }

  /** Waiting events past their deadline are answered now rather than sent late. */
  private expireWaiting(now: number): void {
    let expired = 0;
    while (expired < this.arrivals.length && this.arrivals[expired]! + this.opts.timeoutMs <= now) expired++;
    if (expired === 0) return;
    const error = new Error('not published within the publish timeout');
    this.jsons.splice(0, expired);
    this.sizes.splice(0, expired);
    this.arrivals.splice(0, expired);
    for (const w of this.waiters.splice(0, expired)) w.reject(error);
  }

  private checkDrained(): void {
    if (this.drained && this.jsons.length === 0 && this.inFlight === 0) {
      const done = this.drained;
      this.drained = undefined;
      done();
    }
  }
}
