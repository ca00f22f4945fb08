import { ConcurrencyGate } from './concurrency-gate';

/** A task the test finishes by hand. */
function deferred() {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return { done, finish };
}

describe('ConcurrencyGate', () => {
  test('when more tasks arrive than the gate admits, then the rest wait and start in arrival order as others finish', async () => {
    const gate = new ConcurrencyGate(2);
    const [t0, t1, t2, t3] = [deferred(), deferred(), deferred(), deferred()];
    const tasks = [t0, t1, t2, t3];
    const started: number[] = [];
    const runs = tasks.map((task, i) =>
      gate.run(async () => {
        started.push(i);
        await task.done;
        return i;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    t1.finish();
    await expect(runs[1]).resolves.toBe(1);
    expect(started).toEqual([0, 1, 2]);
    t0.finish();
    await expect(runs[0]).resolves.toBe(0);
    expect(started).toEqual([0, 1, 2, 3]);
    t2.finish();
    t3.finish();
    await expect(Promise.all(runs)).resolves.toEqual([0, 1, 2, 3]);
  });

  test('when a task fails, then its slot is freed and the failure reaches its caller', async () => {
    const gate = new ConcurrencyGate(1);
    const failing = gate.run(() => Promise.reject(new Error('boom')));
    const next = gate.run(async () => 'next');
    await expect(failing).rejects.toThrow('boom');
    await expect(next).resolves.toBe('next');
  });
});
