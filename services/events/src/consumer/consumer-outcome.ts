import type { JsMsg } from '@nats-io/jetstream';

/** What the batch handler decided for one message (STYLE rule 7). */
export type Outcome =
  | { kind: 'written' }
  | { kind: 'duplicate' }
  | { kind: 'dropped'; reason: string }
  | { kind: 'dead_lettered'; reason: string }
  | { kind: 'retry'; reason: string; delayMs: number };

export const written: Outcome = { kind: 'written' };
export const duplicate: Outcome = { kind: 'duplicate' };
export const dropped = (reason: string): Outcome => ({ kind: 'dropped', reason });
export const deadLettered = (reason: string): Outcome => ({ kind: 'dead_lettered', reason });
export const retry = (reason: string, delayMs: number): Outcome => ({ kind: 'retry', reason, delayMs });

export type Settlement = { action: 'ack' } | { action: 'term'; reason: string } | { action: 'nak'; delayMs: number };

/**
 * The one mapping from outcome to JetStream acknowledgement:
 * written / duplicate (already stored under the same _id) / dropped -> ack;
 * dead-lettered (its copy is in the DLQ stream) -> term, never redelivered;
 * retry -> nak with a delay, redelivered later.
 */
export function settlementFor(outcome: Outcome): Settlement {
  switch (outcome.kind) {
    case 'written':
    case 'duplicate':
    case 'dropped':
      return { action: 'ack' };
    case 'dead_lettered':
      return { action: 'term', reason: outcome.reason };
    case 'retry':
      return { action: 'nak', delayMs: outcome.delayMs };
  }
}

export function settle(msg: JsMsg, outcome: Outcome): void {
  const s = settlementFor(outcome);
  if (s.action === 'ack') msg.ack();
  // no reason argument: `+TERM <reason>` needs server 2.10.4+, older servers ignore it and redeliver
  else if (s.action === 'term') msg.term();
  else msg.nak(s.delayMs);
}

/** Exponential backoff per delivery: base, 2 x base, 4 x base ... capped at max. */
export function retryDelay(deliveryCount: number, baseMs: number, maxMs: number): number {
  const exponent = Math.min(Math.max(deliveryCount - 1, 0), 30);
  return Math.min(maxMs, baseMs * 2 ** exponent);
}
