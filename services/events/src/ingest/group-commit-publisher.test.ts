import { decodeEventPayload } from '@cm/contracts';
import { GroupCommitPublisher, PublishRefusedError, type GroupCommitOptions } from './group-commit-publisher';
import type { PubAck } from './jetstream-sender';

/** A scripted broker: records every message and lets the test decide when (and how) each is answered. */
function scriptedSender() {
  const sent: {
    subject: string;
    id: string;
    deadline: number;
    events: string[];
    bytes: number;
    answer(ok: boolean): void;
  }[] = [];
  return {
    sent,
    send(subject: string, data: Uint8Array, id: string, deadline: number): Promise<PubAck> {
      return new Promise((resolve, reject) => {
        const payload = decodeEventPayload(data);
        const events = payload.ok ? payload.events.map((e) => (e.ok ? e.value.id : 'invalid')) : [];
        sent.push({
          subject,
          id,
          deadline,
          events,
          bytes: data.length,
          answer: (ok) => (ok ? resolve({ stream: 'S', seq: sent.length }) : reject(new Error('no ack'))),
        });
      });
    },
  };
}

let n = 0;
/** An encoded event of about `size` bytes (the id tells them apart). */
function event(size = 200): string {
  n++;
  const id = `0193a000-0000-7000-8000-${String(n).padStart(12, '0')}`;
  const base = {
    id,
    owner_id: '1',
    name: 'e',
    url: '',
    content_id: '',
    device_type: 'desktop',
    bot: false,
    metadata: {},
    created: '2026-11-22T10:00:00.000Z',
  };
  const pad = Math.max(0, size - JSON.stringify(base).length - 13);
  return JSON.stringify({ ...base, metadata: { p: 'x'.repeat(pad) } });
}
const idOf = (json: string): string => (JSON.parse(json) as { id: string }).id;
const turn = () => new Promise((r) => setImmediate(r));

function publisher(sender: ReturnType<typeof scriptedSender>, opts: Partial<GroupCommitOptions> = {}) {
  let ids = 0;
  return new GroupCommitPublisher(sender, {
    subject: 'ev.batch',
    window: 1,
    maxEvents: 100,
    maxBytes: 256 * 1024,
    timeoutMs: 5000,
    maxWaiting: 1000,
    newId: () => `batch-${++ids}`,
    ...opts,
  });
}

describe('group commit publisher', () => {
  test('when a lone event arrives at an idle publisher, then it goes out at once in a message of its own', async () => {
    const sender = scriptedSender();
    const p = publisher(sender);
    const e = event();
    const done = p.publish(e);
    await turn();
    expect(sender.sent.map((m) => m.events)).toEqual([[idOf(e)]]);
    sender.sent[0]!.answer(true);
    await expect(done).resolves.toBeUndefined();
  });

  test('when a burst arrives while the window is full, then it waits and goes out as one message when the slot frees', async () => {
    const sender = scriptedSender();
    const p = publisher(sender);
    const first = event();
    const firstDone = p.publish(first);
    await turn();
    const burst = Array.from({ length: 9 }, () => event());
    const burstDone = burst.map((e) => p.publish(e));
    await turn();
    expect(sender.sent).toHaveLength(1);
    sender.sent[0]!.answer(true);
    await firstDone;
    expect(sender.sent.map((m) => m.events)).toEqual([[idOf(first)], burst.map(idOf)]);
    // every event of a message settles with it, and only then
    let settled = 0;
    burstDone.forEach((d) => void d.then(() => settled++));
    await turn();
    expect(settled).toBe(0);
    sender.sent[1]!.answer(true);
    await Promise.all(burstDone);
    expect(settled).toBe(9);
  });

  test('when more events wait than one message may carry, then they go out in messages of at most maxEvents, oldest first', async () => {
    const sender = scriptedSender();
    const p = publisher(sender, { maxEvents: 10 });
    const events = Array.from({ length: 25 }, () => event());
    const done = events.map((e) => p.publish(e));
    await turn();
    for (let i = 0; i < 3; i++) {
      sender.sent[i]!.answer(true);
      await turn();
    }
    await Promise.all(done);
    expect(sender.sent.map((m) => m.events.length)).toEqual([10, 10, 5]);
    expect(sender.sent.flatMap((m) => m.events)).toEqual(events.map(idOf));
  });

  test('when the waiting events exceed the byte bound, then a message holds only what fits maxBytes', async () => {
    const sender = scriptedSender();
    const p = publisher(sender, { maxBytes: 128 * 1024, window: 2 });
    const done = Array.from({ length: 30 }, () => p.publish(event(10_000)));
    await turn();
    // 13 events of 10,000 bytes and their separators fit 128 KiB, a 14th would not
    expect(sender.sent.map((m) => m.events.length)).toEqual([13, 13]);
    expect(Math.max(...sender.sent.map((m) => m.bytes))).toBeLessThanOrEqual(128 * 1024);
    sender.sent.forEach((m) => m.answer(true));
    await turn();
    sender.sent[2]!.answer(true);
    await Promise.all(done);
    expect(sender.sent.map((m) => m.events.length)).toEqual([13, 13, 4]);
  });

  test('when the window allows several messages, then waiting events are spread over the free slots', async () => {
    const sender = scriptedSender();
    const p = publisher(sender, { window: 2, maxEvents: 4 });
    Array.from({ length: 10 }, () => void p.publish(event()).catch(() => undefined));
    await turn();
    expect(sender.sent.map((m) => m.events.length)).toEqual([4, 4]);
  });

  test('when a message is not acknowledged, then exactly its events fail and the next message is unaffected', async () => {
    const sender = scriptedSender();
    const p = publisher(sender);
    const a = p.publish(event());
    await turn();
    const b = [p.publish(event()), p.publish(event())];
    await turn();
    sender.sent[0]!.answer(false);
    await expect(a).rejects.toThrow('no ack');
    sender.sent[1]!.answer(true);
    await expect(Promise.all(b)).resolves.toBeDefined();
  });

  test("when a message is formed, then every attempt must end by the oldest event's arrival + timeoutMs, and each message has its own id", async () => {
    const sender = scriptedSender();
    const p = publisher(sender, { timeoutMs: 3000 });
    const before = Date.now();
    void p.publish(event());
    await turn();
    expect(sender.sent[0]!.deadline).toBeGreaterThanOrEqual(before + 3000);
    expect(sender.sent[0]!.deadline).toBeLessThanOrEqual(Date.now() + 3000);
    sender.sent[0]!.answer(true);
    void p.publish(event());
    await turn();
    expect(sender.sent.map((m) => m.id)).toEqual(['batch-1', 'batch-2']);
    expect(sender.sent[0]!.subject).toBe('ev.batch');
  });

  test('when too many events are waiting, then a new one is refused at once', async () => {
    const sender = scriptedSender();
    const p = publisher(sender, { maxWaiting: 3 });
    void p.publish(event());
    await turn();
    const waiting = [p.publish(event()), p.publish(event()), p.publish(event())];
    await expect(p.publish(event())).rejects.toBeInstanceOf(PublishRefusedError);
    sender.sent[0]!.answer(true);
    await turn();
    sender.sent[1]!.answer(true);
    await Promise.all(waiting);
  });

  test('when events waited past their deadline for a slot, then they fail without being sent', async () => {
    const sender = scriptedSender();
    // a deadline no busy machine reaches by itself (a 50 ms one passed before the first send
    // under load); the publisher reads Date.now(): it is moved past the deadline instead
    const p = publisher(sender, { timeoutMs: 60_000 });
    void p.publish(event()).catch(() => undefined);
    await turn();
    const late = p.publish(event());
    const arrived = Date.now();
    const clock = jest.spyOn(Date, 'now').mockReturnValue(arrived + 60_080);
    try {
      sender.sent[0]!.answer(false);
      await expect(late).rejects.toThrow(/publish timeout/);
    } finally {
      clock.mockRestore();
    }
    expect(sender.sent).toHaveLength(1);
  });

  test('when the publisher drains, then it resolves once every event handed in was answered', async () => {
    const sender = scriptedSender();
    const p = publisher(sender);
    const done = [p.publish(event()), p.publish(event())];
    await turn();
    let drained = false;
    void p.drain().then(() => (drained = true));
    await turn();
    expect(drained).toBe(false);
    sender.sent[0]!.answer(true);
    await Promise.all(done);
    await turn();
    expect(drained).toBe(true);
    await expect(p.drain()).resolves.toBeUndefined();
  });
});
