import { createInbox, headers, type Msg, type Subscription } from '@nats-io/transport-node';
import type { NatsConnection } from '@cm/platform';

/** The stream's acknowledgement of one stored message (JetStream's PubAck). */
export interface PubAck {
  stream: string;
  seq: number;
  /** True when the msgID was already stored within the duplicate window: still durable. */
  duplicate?: boolean;
}

interface Pending {
  resolve(ack: PubAck): void;
  reject(err: Error): void;
  deadline: number;
}

const decoder = new TextDecoder();

/**
 * JetStream publishing on the hot path. It speaks the documented JetStream publish protocol
 * (a core publish with a reply subject and a `Nats-Msg-Id` header; the stream answers with a
 * PubAck) but spends far less per message than `jetstream().publish()`, which measured ~4x
 * slower behind the pixel: that call builds a request object with its own timer and creates an
 * Error with a stack trace for every message, even a successful one.
 * - one wildcard reply subscription, acks matched by a counter token;
 * - one sweep timer for all deadlines instead of a timer per message;
 * - publishes made during one event-loop turn are handed to the client together (setImmediate),
 *   so they leave in one socket write instead of one write per pixel request.
 */
export class AckedPublisher {
  private readonly inbox = createInbox();
  private readonly pending = new Map<string, Pending>();
  private queue: (() => void)[] = [];
  private next = 0;
  private sub?: Subscription;
  private sweeper?: NodeJS.Timeout;

  constructor(private readonly nc: NatsConnection, private readonly timeoutMs: number) {}

  start(): void {
    this.sub = this.nc.subscribe(`${this.inbox}.*`, { callback: (_err, msg) => this.settle(msg) });
    const every = Math.max(10, Math.min(100, Math.floor(this.timeoutMs / 5)));
    this.sweeper = setInterval(() => this.expire(Date.now()), every);
    this.sweeper.unref();
  }

  stop(): void {
    clearInterval(this.sweeper);
    this.sub?.unsubscribe();
    this.flush();
    for (const [token, p] of this.pending) {
      this.pending.delete(token);
      p.reject(new Error('publisher stopped'));
    }
  }

  /** Resolves when the stream has stored the message (or already had its msgID); rejects on error or timeout. */
  publish(subject: string, data: Uint8Array, msgId: string): Promise<PubAck> {
    return new Promise((resolve, reject) => {
      const token = (this.next++).toString(36);
      this.pending.set(token, { resolve, reject, deadline: Date.now() + this.timeoutMs });
      if (this.queue.length === 0) setImmediate(() => this.flush());
      this.queue.push(() => {
        const h = headers();
        h.set('Nats-Msg-Id', msgId);
        try {
          this.nc.publish(subject, data, { reply: `${this.inbox}.${token}`, headers: h });
        } catch (err) {
          this.fail(token, err instanceof Error ? err : new Error(String(err)));
        }
      });
    });
  }

  private flush(): void {
    const queue = this.queue;
    this.queue = [];
    for (const send of queue) send();
  }

  private settle(msg: Msg): void {
    const token = msg.subject.slice(this.inbox.length + 1);
    const p = this.pending.get(token);
    if (!p) return;
    this.pending.delete(token);
    // no stream listens on the subject: the server answers with a 503 status and no body
    if (msg.data.length === 0) {
      p.reject(new Error(`no stream for the subject (status ${String(msg.headers?.code ?? 'none')})`));
      return;
    }
    try {
      const ack = JSON.parse(decoder.decode(msg.data)) as PubAck & { error?: { description?: string } };
      if (ack.error || typeof ack.seq !== 'number') p.reject(new Error(`publish refused: ${ack.error?.description ?? 'invalid ack'}`));
      else p.resolve(ack);
    } catch {
      p.reject(new Error('invalid ack'));
    }
  }

  private fail(token: string, err: Error): void {
    const p = this.pending.get(token);
    if (!p) return;
    this.pending.delete(token);
    p.reject(err);
  }

  /** Tokens are handed out in order, so the map's oldest entries expire first. */
  private expire(now: number): void {
    for (const [token, p] of this.pending) {
      if (p.deadline > now) return;
      this.pending.delete(token);
      p.reject(new Error(`no ack within ${this.timeoutMs} ms`));
    }
  }
}
