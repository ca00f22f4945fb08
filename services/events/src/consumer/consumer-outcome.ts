import type { JsMsg } from '@nats-io/jetstream';

/** What became of one event of a message (a v1 message holds one, a v2 batch many). */
export type EventOutcome =
  | { kind: 'written' }
  | { kind: 'duplicate' }
  | { kind: 'dropped'; reason: string }
  | { kind: 'dead_lettered'; reason: string }
  | { kind: 'retry'; reason: string };

export const written: EventOutcome = { kind: 'written' };
export const duplicate: EventOutcome = { kind: 'duplicate' };
export const dropped = (reason: string): EventOutcome => ({ kind: 'dropped', reason });
export const deadLettered = (reason: string): EventOutcome => ({ kind: 'dead_lettered', reason });
export const retry = (reason: string): EventOutcome => ({ kind: 'retry', reason });

/**
 * What the batch handler decided for one JetStream message, from its events (each message is
 * acked, naked or termed, never left to time out):
 * - done: every event is written, already written (duplicate), dropped (past retention) or
 *   dead-lettered on its own;
 * - retry: at least one event must be written again (the others come back as duplicates);
 * - dead_lettered: the message as a whole could not be read and its copy is in the DLQ stream.
 */
export type Outcome =
  | { kind: 'done'; events: EventOutcome[] }
  | { kind: 'retry'; reason: string; delayMs: number; events: EventOutcome[] }
  | { kind: 'dead_lettered'; reason: string };

/** The message's outcome from its events' outcomes: any retry makes the whole message a retry (after `delayMs()`). */
export function messageOutcome(events: EventOutcome[], delayMs: () => number): Outcome {
  const again = events.find((e) => e.kind === 'retry');
  return again
    ? { kind: 'retry', reason: (again as { reason: string }).reason, delayMs: delayMs(), events }
    : { kind: 'done', events };
}

export type Settlement = { action: 'ack' } | { action: 'term'; reason: string } | { action: 'nak'; delayMs: number };

/**
 * The one mapping from outcome to JetStream acknowledgement: done -> ack; dead-lettered (its
 * copy is in the DLQ) -> term, never redelivered; retry -> nak with a delay, redelivered later.
 */
export function settlementFor(outcome: Outcome): Settlement {
  switch (outcome.kind) {
    case 'done':
      return { action: 'ack' };
    case 'dead_lettered':
      return { action: 'term', reason: outcome.reason };
    case 'retry':
      return { action: 'nak', delayMs: outcome.delayMs };
  }
}

export function settle(msg: JsMsg, outcome: Outcome): Settlement['action'] {
  const s = settlementFor(outcome);
  if (s.action === 'ack') msg.ack();
  // no reason argument: `+TERM <reason>` needs server 2.10.4+, older servers ignore it and redeliver
  else if (s.action === 'term') msg.term();
  else msg.nak(s.delayMs);
  return s.action;
}

/** Exponential backoff per delivery: base, 2 x base, 4 x base ... capped at max. */
export function retryDelay(deliveryCount: number, baseMs: number, maxMs: number): number {
  const exponent = Math.min(Math.max(deliveryCount - 1, 0), 30);
  return Math.min(maxMs, baseMs * 2 ** exponent);
}
