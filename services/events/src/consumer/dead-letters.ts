import { jetstream, type JetStreamClient, type JsMsg } from '@nats-io/jetstream';
import { headers, type MsgHdrs } from '@nats-io/transport-node';
import type { NatsConnection } from '@cm/platform';

/** Headers of a dead letter: why, and where the original came from (for inspection and replay). */
export const DLQ_HEADERS = {
  reason: 'Events-Dlq-Reason',
  subject: 'Events-Original-Subject',
  stream: 'Events-Original-Stream',
  sequence: 'Events-Original-Sequence',
  deliveries: 'Events-Deliveries',
  /** Set when the letter is one event of a v2 batch: its position in the batch. */
  batchIndex: 'Events-Batch-Index',
} as const;

const encoder = new TextEncoder();

/**
 * Copies what can never be stored to the dead-letter subject (captured by the DLQ stream): a
 * whole message that cannot be read, with its original bytes, or one event of a batch, as JSON,
 * while its batch-mates are written. The msgID is the original stream sequence (and the event's
 * position), so a copy made twice (the settle was lost and the message came back) is stored once.
 */
export class DeadLetters {
  private readonly js: JetStreamClient;

  constructor(
    nc: NatsConnection,
    private readonly subject: string,
    private readonly timeoutMs: number,
  ) {
    this.js = jetstream(nc);
  }

  async send(msg: JsMsg, reason: string): Promise<void> {
    await this.js.publish(this.subject, msg.data, {
      msgID: `${msg.info.stream}:${msg.seq}`,
      headers: this.headersFor(msg, reason),
      timeout: this.timeoutMs,
    });
  }

  async sendEvent(msg: JsMsg, index: number, event: unknown, reason: string): Promise<void> {
    const h = this.headersFor(msg, reason);
    h.set(DLQ_HEADERS.batchIndex, String(index));
    await this.js.publish(this.subject, encoder.encode(JSON.stringify(event) ?? 'null'), {
      msgID: `${msg.info.stream}:${msg.seq}:${index}`,
      headers: h,
      timeout: this.timeoutMs,
    });
  }

  private headersFor(msg: JsMsg, reason: string): MsgHdrs {
    const h = headers();
    h.set(DLQ_HEADERS.reason, reason.replace(/[\r\n]+/g, ' ').slice(0, 500));
    h.set(DLQ_HEADERS.subject, msg.subject);
    h.set(DLQ_HEADERS.stream, msg.info.stream);
    h.set(DLQ_HEADERS.sequence, String(msg.seq));
    h.set(DLQ_HEADERS.deliveries, String(msg.info.deliveryCount));
    return h;
  }
}
