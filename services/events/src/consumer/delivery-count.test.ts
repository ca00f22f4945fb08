import type { JsMsg } from '@nats-io/jetstream';
import { deliveryCount } from './delivery-count';

const msgWithReply = (reply: string, infoCount = -1): JsMsg =>
  ({ reply, info: { deliveryCount: infoCount } }) as unknown as JsMsg;

describe('delivery count from the reply subject', () => {
  test('when the reply has the 9-token form, then the count is its fifth token', () => {
    expect(deliveryCount(msgWithReply('$JS.ACK.EVENTS.events-writer.3.1200.1180.1763778000000000000.42'))).toBe(3);
  });

  test('when the reply has the domain form (11 or 12 tokens), then the count is its seventh token', () => {
    expect(
      deliveryCount(msgWithReply('$JS.ACK.hub.ACCHASH.EVENTS.events-writer.1.1200.1180.1763778000000000000.42')),
    ).toBe(1);
    expect(
      deliveryCount(msgWithReply('$JS.ACK._.ACCHASH.EVENTS.events-writer.17.1200.1180.1763778000000000000.42.rnd')),
    ).toBe(17);
  });

  test('when the reply is not a JetStream ack subject, then msg.info decides', () => {
    expect(deliveryCount(msgWithReply('_INBOX.abc.def', 5))).toBe(5);
    expect(deliveryCount({ info: { deliveryCount: 2 } } as unknown as JsMsg)).toBe(2);
    expect(deliveryCount(msgWithReply('$JS.ACK.EVENTS.events-writer.x.1200.1180.1763778000000000000.42', 7))).toBe(7);
  });
});
