import { createInbox, headers, type Msg, type MsgHdrs, type Subscription } from '@nats-io/transport-node';
import type { NatsConnection } from '@cm/platform';

/** The stream's acknowledgement of one stored message (JetStream's PubAck). */
export interface PubAck {
  stream: string;
  seq: number;
  /** True when the msgID was already stored within the duplicate window: still durable. */
  duplicate?: boolean;
}

export interface SenderOptions {
  /** How long one attempt waits for its ack before the message is sent again (same msgID). */
  attemptTimeoutMs: number;
  /** First pause after a refused or unanswered attempt; doubles per attempt, capped at 1 s. */
  retryBaseMs?: number;
  /** Told about every repeated attempt, with the reason the previous one failed. */
  onRetry?: (reason: string) => void;
}

interface Pending {
  subject: string;
  data: Uint8Array;
  headers: MsgHdrs;
  deadline: number;
  /** When the attempt in flight counts as unanswered; Infinity while none is in flight. */
  attemptDeadline: number;
  /** When the next attempt may go out; Infinity while one is in flight. */
  nextAttemptAt: number;
  attempts: number;
  lastError: string;
  resolve(ack: PubAck): void;
  reject(err: Error): void;
}

const decoder = new TextDecoder();
const MAX_BACKOFF_MS = 1000;

/**
 * Publishes to JetStream and waits for the stream's ack, riding out what a cluster does for a
 * few seconds when a node or the stream leader dies (docs/operations.md 5.2): an attempt that is
 * refused (no responders while the stream elects a leader, "temporarily unavailable") or not
 * answered in time is sent again under the SAME msgID until the message's deadline, so the stream
 * stores it once whichever attempt got through. While the connection is down nothing is sent;
 * once the client has reconnected (to any node of the cluster) every pending message goes out
 * again at once, because acks in flight at the disconnect are lost.
 *
 * It speaks the documented JetStream publish protocol (a core publish with a reply subject and a
 * `Nats-Msg-Id` header) instead of `jetstream().publish()`, which builds a request with its own
 * timer and an Error with a stack trace per message: one wildcard reply subscription, acks
 * matched by token, one sweep timer for every deadline.
 */
export class JetStreamSender {
  private readonly inbox = createInbox();
  private readonly pending = new Map<string, Pending>();
  private readonly retryBaseMs: number;
  private next = 0;
  private connected = true;
  private disconnectedAt = 0;
  private sub?: Subscription;
  private sweeper?: NodeJS.Timeout;

  constructor(
    private readonly nc: NatsConnection,
    private readonly opts: SenderOptions,
  ) {
    this.retryBaseMs = opts.retryBaseMs ?? 50;
  }

  start(): void {
    this.sub = this.nc.subscribe(`${this.inbox}.*`, { callback: (_err, msg) => this.settle(msg) });
    this.sweeper = setInterval(() => this.sweep(Date.now()), 20);
    this.sweeper.unref();
    void this.trackConnection();
  }

  stop(): void {
    clearInterval(this.sweeper);
    this.sub?.unsubscribe();
    for (const [token, p] of this.pending) {
      this.pending.delete(token);
      p.reject(new Error('publisher stopped'));
    }
  }

  /** Milliseconds the connection has been down (0 while connected). */
  disconnectedFor(now = Date.now()): number {
    return this.connected ? 0 : now - this.disconnectedAt;
  }

  get closed(): boolean {
    return this.nc.isClosed();
  }

  /** Resolves when the stream has stored the message (or already had its msgID); rejects at `deadline` (epoch ms). */
  send(subject: string, data: Uint8Array, msgId: string, deadline: number): Promise<PubAck> {
    return new Promise((resolve, reject) => {
      const token = (this.next++).toString(36);
      const h = headers();
      h.set('Nats-Msg-Id', msgId);
      const p: Pending = {
        subject,
        data,
        headers: h,
        deadline,
        attemptDeadline: Infinity,
        nextAttemptAt: 0,
        attempts: 0,
        lastError: 'not sent',
        resolve,
        reject,
      };
      this.pending.set(token, p);
      if (this.connected) this.attempt(token, p, Date.now());
    });
  }

  /** One round trip to the server, bounded: used to keep answers for unknown owners as slow as stored ones. */
  async roundTrip(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.nc.flush(),
        new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('no round trip')), timeoutMs))),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  private attempt(token: string, p: Pending, now: number): void {
    p.attempts++;
    if (p.attempts > 1) this.opts.onRetry?.(p.lastError);
    p.nextAttemptAt = Infinity;
    p.attemptDeadline = Math.min(p.deadline, now + this.opts.attemptTimeoutMs);
    try {
      this.nc.publish(p.subject, p.data, { reply: `${this.inbox}.${token}`, headers: p.headers });
    } catch (err) {
      this.failed(p, err instanceof Error ? err.message : String(err), now);
    }
  }

  /**
   * An attempt that failed: a refused one is repeated after a growing pause (the server said no
   * just now), an unanswered one at once (the attempt timeout was the pause). The deadline rules.
   */
  private failed(p: Pending, reason: string, now: number, pause = true): void {
    p.lastError = reason;
    p.attemptDeadline = Infinity;
    p.nextAttemptAt = pause
      ? now + Math.min(MAX_BACKOFF_MS, this.retryBaseMs * 2 ** Math.min(p.attempts - 1, 10))
      : now;
  }

  private settle(msg: Msg): void {
    const token = msg.subject.slice(this.inbox.length + 1);
    const p = this.pending.get(token);
    if (!p) return;
    // no stream listens on the subject (none yet, or it is electing a leader): a 503 status, no body
    if (msg.data.length === 0) {
      this.failed(p, `no stream answered (status ${String(msg.headers?.code ?? 'none')})`, Date.now());
      return;
    }
    let ack: PubAck & { error?: { description?: string } };
    try {
      ack = JSON.parse(decoder.decode(msg.data)) as PubAck & { error?: { description?: string } };
    } catch {
      this.failed(p, 'invalid ack', Date.now());
      return;
    }
    if (ack.error || typeof ack.seq !== 'number') {
      this.failed(p, `publish refused: ${ack.error?.description ?? 'invalid ack'}`, Date.now());
      return;
    }
    this.pending.delete(token);
    p.resolve(ack);
  }

  private sweep(now: number): void {
    for (const [token, p] of this.pending) {
      if (now >= p.deadline) {
        this.pending.delete(token);
        p.reject(new Error(p.attempts === 0 ? 'broker disconnected' : `not acknowledged: ${p.lastError}`));
      } else if (now >= p.attemptDeadline) {
        this.failed(p, `no ack within ${this.opts.attemptTimeoutMs} ms`, now, false);
      } else if (now >= p.nextAttemptAt && this.connected) {
        this.attempt(token, p, now);
      }
    }
  }

  private async trackConnection(): Promise<void> {
    for await (const s of this.nc.status()) {
      if (s.type === 'disconnect') {
        if (this.connected) this.disconnectedAt = Date.now();
        this.connected = false;
      } else if (s.type === 'reconnect') {
        this.connected = true;
        // acks of attempts sent before the disconnect may never come: send everything again now
        const now = Date.now();
        for (const [token, p] of this.pending) this.attempt(token, p, now);
      }
    }
  }
}
