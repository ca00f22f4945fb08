import type { JsMsg } from '@nats-io/jetstream';

const DOT = 46;

/**
 * How many times JetStream has delivered this message, read straight from the reply subject:
 * `$JS.ACK.<stream>.<consumer>.<count>.<...>` (9 tokens) or, with a domain and account hash
 * after ACK, 11 or 12 tokens with the count 7th. The consumer needs it for every message (the
 * redelivery metric); msg.info splits the whole subject into an object for that, which costs
 * ~1 us per message. Anything else falls back to msg.info.
 */
export function deliveryCount(msg: JsMsg): number {
  // `reply` is on the implementation, not the JsMsg interface: without it, msg.info decides
  const reply = (msg as JsMsg & { reply?: unknown }).reply;
  if (typeof reply !== 'string') return msg.info.deliveryCount;
  const dots: number[] = [];
  for (let i = 0; i < reply.length; i++) if (reply.charCodeAt(i) === DOT) dots.push(i);
  const tokens = dots.length + 1;
  const at = tokens === 9 ? 3 : tokens === 11 || tokens === 12 ? 5 : -1;
  if (at < 0 || !reply.startsWith('$JS.ACK.')) return msg.info.deliveryCount;
  const count = Number(reply.slice(dots[at]! + 1, dots[at + 1]));
  return Number.isInteger(count) && count > 0 ? count : msg.info.deliveryCount;
}
