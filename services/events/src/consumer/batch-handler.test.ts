import type { JsMsg } from '@nats-io/jetstream';
import { encodeEventBatch, encodeEventMessage, encodeEventRecord, type EventRecord } from '@cm/contracts';
import type { EventDocument } from '../storage/event-document';
import { createBatchHandler } from './batch-handler';
import { toDelivery } from './delivery';
import type { InsertResult } from './insert-results';
import { RejectionCounts } from './rejection-counts';

const config = {
  BUCKET_PREFIX: 'ev',
  RETENTION_DAYS: 30,
  CONSUMER_MAX_WRITE_ATTEMPTS: 3,
  CONSUMER_RETRY_BASE_MS: 100,
  CONSUMER_RETRY_MAX_MS: 1000,
};
const now = new Date('2026-11-22T12:00:00Z');

let seq = 0;
/** A delivered JetStream message as the handler sees it (decoded on arrival). */
function delivery(data: Uint8Array | string, deliveryCount = 1) {
  const s = ++seq;
  const msg = {
    data: typeof data === 'string' ? new TextEncoder().encode(data) : data,
    seq: s,
    subject: 'ev.batch',
    info: { deliveryCount, stream: 'EV', pending: 0 },
  } as unknown as JsMsg;
  return toDelivery(msg);
}

function event(partial: Partial<EventRecord> = {}): EventRecord {
  const id = `0193a000-0000-7000-8000-${String(++seq).padStart(12, '0')}`;
  return {
    id,
    owner_id: '1',
    name: 'impression',
    url: '',
    content_id: '',
    device_type: 'desktop',
    bot: false,
    metadata: {},
    created: '2026-11-22T10:00:00.000Z',
    ...partial,
  };
}

const v1 = (e: EventRecord) => encodeEventMessage({ v: 1, ...e });
const v2 = (...items: (EventRecord | Record<string, unknown>)[]) =>
  encodeEventBatch(
    `b${++seq}`,
    items.map((e) => JSON.stringify(e)),
  );

/** A writer that records what it was asked to write and answers with scripted results. */
function fakeWriter(
  answer: (bucket: string, docs: EventDocument[]) => InsertResult[] = (_b, docs) =>
    docs.map(() => ({ status: 'written' })),
) {
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
  const sent: { seq: number; index?: number; event?: unknown; reason: string }[] = [];
  return {
    sent,
    send: async (msg: JsMsg, reason: string) => {
      if (fail) throw new Error('nats down');
      sent.push({ seq: msg.seq, reason });
    },
    sendEvent: async (msg: JsMsg, index: number, ev: unknown, reason: string) => {
      if (fail) throw new Error('nats down');
      sent.push({ seq: msg.seq, index, event: ev, reason });
    },
  };
}

const handler = (writer = fakeWriter(), dlq = fakeDeadLetters()) =>
  createBatchHandler({ writer, deadLetters: dlq, config, now: () => now });

describe('batch handler', () => {
  test('when batches and single events span two days, then each day is one insert across all messages and every message is done', async () => {
    const writer = fakeWriter();
    const a = event({ created: '2026-11-21T23:59:59.999Z' });
    const b = event({ created: '2026-11-22T00:00:00.000Z' });
    const c = event({ created: '2026-11-21T08:00:00.000Z' });
    const d = event();
    const outcomes = await handler(writer)([delivery(v2(a, b)), delivery(v1(c)), delivery(v2(d))]);
    expect(outcomes).toEqual([
      { kind: 'done', events: [{ kind: 'written' }, { kind: 'written' }] },
      { kind: 'done', events: [{ kind: 'written' }] },
      { kind: 'done', events: [{ kind: 'written' }] },
    ]);
    expect(writer.calls).toEqual([
      { bucket: 'ev_20261121', ids: [a.id, c.id] },
      { bucket: 'ev_20261122', ids: [b.id, d.id] },
    ]);
  });

  test('when one event of a batch is invalid, then it alone is dead-lettered (as it came, with its position) and its batch-mates are written', async () => {
    const writer = fakeWriter();
    const dlq = fakeDeadLetters();
    const good = [event(), event()];
    const bad = { ...event(), metadata: { 'a.b': 'x' } };
    const msg = delivery(v2(good[0]!, bad, good[1]!));
    const [outcome] = await handler(writer, dlq)([msg]);
    expect(outcome).toEqual({
      kind: 'done',
      events: [
        { kind: 'written' },
        { kind: 'dead_lettered', reason: expect.stringMatching(/^invalid event: .*metadata/) },
        { kind: 'written' },
      ],
    });
    expect(dlq.sent).toEqual([
      { seq: msg.msg.seq, index: 1, event: bad, reason: expect.stringMatching(/^invalid event/) },
    ]);
    expect(writer.calls[0]!.ids).toEqual([good[0]!.id, good[1]!.id]);
  });

  test('when messages cannot be read at all, then they are dead-lettered whole with the reason and the rest is written', async () => {
    const writer = fakeWriter();
    const dlq = fakeDeadLetters();
    const good = event();
    const msgs = [
      delivery('not json'),
      delivery(v1(good)),
      delivery(JSON.stringify({ v: 1, ...event(), metadata: { 'a.b': 'x' } })),
      delivery(JSON.stringify({ v: 2, id: 'b', events: [] })),
    ];
    const outcomes = await handler(writer, dlq)(msgs);
    expect(outcomes.map((o) => o.kind)).toEqual(['dead_lettered', 'done', 'dead_lettered', 'dead_lettered']);
    expect(dlq.sent.map((s) => s.seq)).toEqual([msgs[0]!.msg.seq, msgs[2]!.msg.seq, msgs[3]!.msg.seq]);
    expect(dlq.sent[0]!.reason).toBe('undecodable: not JSON');
    expect(writer.calls[0]!.ids).toEqual([good.id]);
  });

  test('when the dead-letter publish fails, then the message is retried, never terminated', async () => {
    const whole = await handler(fakeWriter(), fakeDeadLetters(true))([delivery('nope', 2)]);
    expect(whole[0]).toEqual({
      kind: 'retry',
      reason: expect.stringContaining('dead-letter publish failed'),
      delayMs: 200,
      events: [],
    });
    const one = await handler(fakeWriter(), fakeDeadLetters(true))([delivery(v2(event(), { bad: true }), 1)]);
    expect(one[0]).toMatchObject({
      kind: 'retry',
      reason: expect.stringContaining('dead-letter publish failed'),
      delayMs: 100,
    });
  });

  test('when MongoDB fails the write as a whole, then every message is retried with a delay growing per delivery', async () => {
    const writer = fakeWriter((_b, docs) => docs.map(() => ({ status: 'failed', message: 'connection refused' })));
    const outcomes = await handler(writer)([
      delivery(v2(event(), event()), 1),
      delivery(v1(event()), 3),
      delivery(v2(event()), 50),
    ]);
    expect(outcomes.map((o) => (o.kind === 'retry' ? [o.reason, o.delayMs] : o.kind))).toEqual([
      ['connection refused', 100],
      ['connection refused', 400],
      ['connection refused', 1000],
    ]);
  });

  test('when part of a batch was written before (a redelivery), then those events are duplicates and the message is done', async () => {
    const writer = fakeWriter((_b, docs) => docs.map((_d, i) => ({ status: i < 2 ? 'duplicate' : 'written' })));
    const [outcome] = await handler(writer)([delivery(v2(event(), event(), event()), 2)]);
    expect(outcome).toEqual({
      kind: 'done',
      events: [{ kind: 'duplicate' }, { kind: 'duplicate' }, { kind: 'written' }],
    });
  });

  test('when one event of a batch fails to be written, then the whole message is retried (its written batch-mates come back as duplicates)', async () => {
    const writer = fakeWriter((_b, docs) =>
      docs.map((_d, i) => (i === 1 ? { status: 'failed', message: 'not primary' } : { status: 'written' })),
    );
    const [outcome] = await handler(writer)([delivery(v2(event(), event(), event()))]);
    expect(outcome).toMatchObject({ kind: 'retry', reason: 'not primary', delayMs: 100 });
  });

  test('when MongoDB refuses one document, then it is retried until its refusals reach the attempts and then dead-lettered alone', async () => {
    const writer = fakeWriter((_b, docs) =>
      docs.map((d, i) => (i === 0 ? { status: 'rejected', message: 'document invalid' } : { status: 'written' })),
    );
    const dlq = fakeDeadLetters();
    const refused = event();
    const handle = handler(writer, dlq);
    for (const n of [1, 2]) expect((await handle([delivery(v2(refused, event()), n)]))[0]!.kind).toBe('retry');
    const last = await handle([delivery(v2(refused, event()), 3)]);
    expect(last[0]).toEqual({
      kind: 'done',
      events: [{ kind: 'dead_lettered', reason: 'write rejected: document invalid' }, { kind: 'written' }],
    });
    expect(dlq.sent).toEqual([expect.objectContaining({ index: 0, event: refused })]);
  });

  test('when a message failed many deliveries during an outage and the database refuses an event once as it comes back, then nothing is dead-lettered and the event is written next', async () => {
    let phase: 'down' | 'coming back' | 'up' = 'down';
    const writer = fakeWriter((_b, docs) =>
      docs.map((): InsertResult => {
        if (phase === 'down') return { status: 'failed', message: 'connection refused' };
        if (phase === 'coming back') return { status: 'rejected', message: 'not ready yet' };
        return { status: 'written' };
      }),
    );
    const dlq = fakeDeadLetters();
    const handle = handler(writer, dlq);
    const data = v2(event(), event());
    for (let n = 1; n <= 20; n++) expect((await handle([delivery(data, n)]))[0]!.kind).toBe('retry');
    phase = 'coming back';
    expect((await handle([delivery(data, 21)]))[0]).toMatchObject({ kind: 'retry', reason: 'not ready yet' });
    phase = 'up';
    expect(await handle([delivery(data, 22)])).toEqual([
      { kind: 'done', events: [{ kind: 'written' }, { kind: 'written' }] },
    ]);
    expect(dlq.sent).toEqual([]);
  });

  test('when an event was refused and then written, then its earlier refusals no longer count', async () => {
    let refuse = true;
    const writer = fakeWriter((_b, docs) =>
      docs.map((): InsertResult => (refuse ? { status: 'rejected', message: 'refused' } : { status: 'duplicate' })),
    );
    const dlq = fakeDeadLetters();
    const rejections = new RejectionCounts();
    const handle = createBatchHandler({ writer, deadLetters: dlq, config, now: () => now, rejections });
    const data = v1(event());
    await handle([delivery(data, 1)]);
    await handle([delivery(data, 2)]);
    expect(rejections.size).toBe(1);
    refuse = false;
    await handle([delivery(data, 3)]);
    expect(rejections.size).toBe(0);
    expect(dlq.sent).toEqual([]);
  });

  test('when an event is older than the retention period, then it is dropped without a write', async () => {
    const writer = fakeWriter();
    const outcomes = await handler(writer)([delivery(v2(event({ created: '2026-10-01T00:00:00.000Z' })))]);
    expect(outcomes).toEqual([
      { kind: 'done', events: [{ kind: 'dropped', reason: 'older than the retention period' }] },
    ]);
    expect(writer.calls).toEqual([]);
  });

  test('when a batch is encoded the way ingest encodes it, then the handler reads it', async () => {
    const writer = fakeWriter();
    const e = event({ metadata: { utm_source: 'x' } });
    const [outcome] = await handler(writer)([delivery(encodeEventBatch('b-1', [encodeEventRecord(e)]))]);
    expect(outcome!.kind).toBe('done');
    expect(writer.calls[0]!.ids).toEqual([e.id]);
  });
});
