import type { JsMsg } from '@nats-io/jetstream';
import { decodeEventPayload, type DecodedPayload } from '@cm/contracts';

/** A JetStream message with its decoded content (decoded once, when it arrives). */
export interface Delivery {
  msg: JsMsg;
  payload: DecodedPayload;
}

export function toDelivery(msg: JsMsg): Delivery {
  return { msg, payload: decodeEventPayload(msg.data) };
}

/** Events a delivery brings to the next write (an unreadable message counts as one). */
export function eventCount(delivery: Delivery): number {
  return delivery.payload.ok ? delivery.payload.events.length : 1;
}
