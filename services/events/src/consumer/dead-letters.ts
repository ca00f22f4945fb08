import { jetstream, type JetStreamClient, type JsMsg } from '@nats-io/jetstream';
import { headers } from '@nats-io/transport-node';
import type { NatsConnection } from '@cm/platform';

/** Headers of a dead letter: why, and where the original came from (for inspection and replay). */
export const DLQ_HEADERS = {
  reason: 'Events-Dlq-Reason',
  subject: 'Events-Original-Subject',
  stream: 'Events-Original-Stream',
  sequence: 'Events-Original-Sequence',
  deliveries: 'Events-Deliveries',
} as const;

/**
 * Copies a message that can never be stored to the dead-letter subject (captured by the DLQ
 * stream) with its original bytes. The msgID is the original stream sequence, so a copy made
 * twice (the term was lost and the message came back) is stored once.
 */
export class DeadLetters {
  private readonly js: JetStreamClient;

  constructor(nc: NatsConnection, private readonly subject: string, private readonly timeoutMs: number) {
    this.js = jetstream(nc);
  }

  async send(msg: JsMsg, reason: string): Promise<void> {
    const h = headers();
    h.set(DLQ_HEADERS.reason, reason.replace(/[\r\n]+/g, ' ').slice(0, 500));
    h.set(DLQ_HEADERS.subject, msg.subject);
    h.set(DLQ_HEADERS.stream, msg.info.stream);
    h.set(DLQ_HEADERS.sequence, String(msg.seq));
    h.set(DLQ_HEADERS.deliveries, String(msg.info.deliveryCount));
    await this.js.publish(this.subject, msg.data, { msgID: `${msg.info.stream}:${msg.seq}`, headers: h, timeout: this.timeoutMs });
  }
}
