import type { JsMsg } from '@nats-io/jetstream';
import { encodeEventMessage, type EventMessage } from '@cm/contracts';
import type { EventDocument } from '../storage/event-document';
import { createBatchHandler } from './batch-handler';
import type { InsertResult } from './insert-results';

const config = { BUCKET_PREFIX: 'ev', RETENTION_DAYS: 30, CONSUMER_MAX_WRITE_ATTEMPTS: 3, CONSUMER_RETRY_BASE_MS: 100, CONSUMER_RETRY_MAX_MS: 1000 };
const now = new Date('2026-11-22T12:00:00Z');

let seq = 0;
function message(data: Uint8Array | string, deliveryCount = 1): JsMsg {
  const s = ++seq;
  return {
    data: typeof data === 'string' ? new TextEncoder().encode(data) : data,
    seq: s,
    subject: 'ev.1',
    info: { deliveryCount, stream: 'EV', pending: 0 },
  } as unknown as JsMsg;
}

function event(partial: Partial<EventMessage> = {}): EventMessage {
  const id = `0193a000-0000-7000-8000-${String(++seq).padStart(12, '0')}`;
  return { v: 1, id, owner_id: '1', name: 'impression', url: '', content_id: '', device_type: 'desktop', bot: false, metadata: {}, created: '2026-11-22T10:00:00.000Z', ...partial };
}

/** A writer that records what it was asked to write and answers with scripted results. */
function fakeWriter(answer: (bucket: string, docs: EventDocument[]) => InsertResult[] = (_b, docs) => docs.map(() => ({ status: 'written' }))) {
  const calls: { bucket: string; ids: string[] }[] = [];
  return {
    calls,
    write: async (bucket: string, docs: EventDocument[]) => {
      calls.push({ bucket, ids: docs.map((d) => d._id) });
      return answer(bucket, docs);
    },
  };
}

function fakeDeadLetters(fail = false) {
  const sent: { seq: number; reason: string }[] = [];
  return {
    sent,
    send: async (msg: JsMsg, reason: string) => {
      if (fail) throw new Error('nats down');
      sent.push({ seq: msg.seq, reason });
    },
  };
}

describe('batch handler', () => {
  test('when a batch spans two days, then each day is one insert into its bucket and all are written', async () => {
    const writer = fakeWriter();
    const handle = createBatchHandler({ writer, deadLetters: fakeDeadLetters(), config, now: () => now });
    const a = event({ created: '2026-11-21T23:59:59.999Z' });
    const b = event({ created: '2026-11-22T00:00:00.000Z' });
    const c = event({ created: '2026-11-21T08:00:00.000Z' });
    const outcomes = await handle([a, b, c].map((e) => message(encodeEventMessage(e))));
    expect(outcomes.map((o) => o.kind)).toEqual(['written', 'written', 'written']);
    expect(writer.calls).toEqual([
      { bucket: 'ev_20261121', ids: [a.id, c.id] },
      { bucket: 'ev_20261122', ids: [b.id] },
    ]);
  });

  test('when messages cannot be decoded, then they are dead-lettered with the reason and the rest is written', async () => {
    const writer = fakeWriter();
    const dlq = fakeDeadLetters();
    const handle = createBatchHandler({ writer, deadLetters: dlq, config, now: () => now });
    const good = event();
    const msgs = [message('not json'), message(encodeEventMessage(good)), message(JSON.stringify({ ...event(), metadata: { 'a.b': 'x' } }))];
    const outcomes = await handle(msgs);
    expect(outcomes.map((o) => o.kind)).toEqual(['dead_lettered', 'written', 'dead_lettered']);
    expect(dlq.sent.map((s) => s.seq)).toEqual([msgs[0]!.seq, msgs[2]!.seq]);
    expect(dlq.sent[0]!.reason).toBe('undecodable: not JSON');
    expect(writer.calls[0]!.ids).toEqual([good.id]);
  });

  test('when the dead-letter publish fails, then the message is retried, never terminated', async () => {
    const handle = createBatchHandler({ writer: fakeWriter(), deadLetters: fakeDeadLetters(true), config, now: () => now });
    const [outcome] = await handle([message('nope', 2)]);
    expect(outcome).toEqual({ kind: 'retry', reason: expect.stringContaining('dead-letter publish failed'), delayMs: 200 });
  });

  test('when MongoDB fails the write as a whole, then every message is retried with a delay growing per delivery', async () => {
    const writer = fakeWriter((_b, docs) => docs.map(() => ({ status: 'failed', message: 'connection refused' })));
    const handle = createBatchHandler({ writer, deadLetters: fakeDeadLetters(), config, now: () => now });
    const outcomes = await handle([message(encodeEventMessage(event()), 1), message(encodeEventMessage(event()), 3), message(encodeEventMessage(event()), 50)]);
    expect(outcomes).toEqual([
      { kind: 'retry', reason: 'connection refused', delayMs: 100 },
      { kind: 'retry', reason: 'connection refused', delayMs: 400 },
      { kind: 'retry', reason: 'connection refused', delayMs: 1000 },
    ]);
  });

  test('when documents were already stored, then they are duplicates (acked), the others written', async () => {
    const writer = fakeWriter((_b, docs) => docs.map((_d, i) => ({ status: i === 0 ? 'duplicate' : 'written' })));
    const handle = createBatchHandler({ writer, deadLetters: fakeDeadLetters(), config, now: () => now });
    const outcomes = await handle([message(encodeEventMessage(event())), message(encodeEventMessage(event()))]);
    expect(outcomes.map((o) => o.kind)).toEqual(['duplicate', 'written']);
  });

  test('when MongoDB refuses one document, then it is retried until the attempts run out and then dead-lettered', async () => {
    const writer = fakeWriter((_b, docs) => docs.map(() => ({ status: 'rejected', message: 'document invalid' })));
    const dlq = fakeDeadLetters();
    const handle = createBatchHandler({ writer, deadLetters: dlq, config, now: () => now });
    const early = await handle([message(encodeEventMessage(event()), 2)]);
    expect(early[0]!.kind).toBe('retry');
    const last = await handle([message(encodeEventMessage(event()), 3)]);
    expect(last[0]).toEqual({ kind: 'dead_lettered', reason: 'write rejected: document invalid' });
    expect(dlq.sent).toHaveLength(1);
  });

  test('when an event is older than the retention period, then it is dropped without a write', async () => {
    const writer = fakeWriter();
    const handle = createBatchHandler({ writer, deadLetters: fakeDeadLetters(), config, now: () => now });
    const outcomes = await handle([message(encodeEventMessage(event({ created: '2026-10-01T00:00:00.000Z' })))]);
    expect(outcomes).toEqual([{ kind: 'dropped', reason: 'older than the retention period' }]);
    expect(writer.calls).toEqual([]);
  });
});
