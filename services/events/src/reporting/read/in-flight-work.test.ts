import { InFlightWork } from './in-flight-work';

describe('InFlightWork', () => {
  test('when nothing was tracked, then it is settled at once', async () => {
    await expect(new InFlightWork().settled()).resolves.toBeUndefined();
  });

  test('when tracked work is pending, then settled waits for all of it, failures included', async () => {
    const work = new InFlightWork();
    let finish!: () => void;
    let fail!: (err: Error) => void;
    work.track(new Promise<void>((resolve) => (finish = resolve)));
    work.track(new Promise<void>((_, reject) => (fail = reject))).catch(() => undefined);
    let settled = false;
    const done = work.close().then(() => (settled = true));
    finish();
    await Promise.resolve();
    await Promise.resolve();
    expect(settled).toBe(false);
    fail(new Error('cursor killed'));
    await done;
    expect(settled).toBe(true);
    expect(work.closed).toBe(true);
  });

  test('when it is closed twice while work is pending, then its settled callback runs once, after the work', async () => {
    let calls = 0;
    const work = new InFlightWork(() => calls++);
    let finish!: () => void;
    work.track(new Promise<void>((resolve) => (finish = resolve)));
    void work.close();
    const second = work.close();
    await Promise.resolve();
    expect(calls).toBe(0);
    finish();
    await second;
    await Promise.resolve();
    expect(calls).toBe(1);
  });
});
