import type { CellStore } from './cell-store';
import { GenerationWriter } from './generation-writer';
import type { CellPageDocument } from './page-layout';

/** A store whose writes finish when the test says, recording the order things happened in. */
function gatedStore() {
  const log: string[] = [];
  const gates: { release: () => void; fail: (e: Error) => void }[] = [];
  const store = {
    writePages(g: string, parts: number, docs: readonly CellPageDocument[]) {
      log.push(`write ${parts} ${docs.map((d) => d._id).join(',')}`);
      return new Promise<number>((resolve, reject) => {
        const release = () => {
          log.push(`stored ${parts}`);
          resolve(parts + 1);
        };
        gates.push({ release, fail: reject });
      });
    },
    async finishGeneration(g: string, parts: number) {
      log.push(`head ${parts}`);
    },
  } as unknown as CellStore;
  return { store, log, gates };
}

const page = (id: string) => ({ _id: id }) as unknown as CellPageDocument;
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('generation writer, writing behind', () => {
  test('when a batch is added, then add returns with it under way, and the next batch starts once it is stored, numbered after it', async () => {
    const { store, log, gates } = gatedStore();
    const writer = new GenerationWriter(store, 'g1', true);
    await writer.add([page('a')]);
    expect(log).toEqual(['write 0 a']);
    const second = writer.add([page('b')]);
    await tick();
    expect(log).toEqual(['write 0 a']);
    gates[0]!.release();
    await second;
    expect(log).toEqual(['write 0 a', 'stored 0', 'write 1 b']);
    const finished = writer.finish();
    await tick();
    expect(log).not.toContain('head 2');
    gates[1]!.release();
    await finished;
    expect(log.slice(-2)).toEqual(['stored 1', 'head 2']);
    expect(writer.written).toBe(2);
  });

  test('when a write behind fails, then the next add and finish throw it, and settled waits without throwing', async () => {
    const { store, log, gates } = gatedStore();
    const writer = new GenerationWriter(store, 'g2', true);
    await writer.add([page('a')]);
    gates[0]!.fail(new Error('server monitor timeout'));
    await expect(writer.settled()).resolves.toBeUndefined();
    await expect(writer.add([page('b')])).rejects.toThrow('server monitor timeout');
    await expect(writer.finish()).rejects.toThrow('server monitor timeout');
    expect(log).toEqual(['write 0 a']);
  });

  test('when the writer does not write behind, then add returns only once its batch is stored', async () => {
    const { store, log, gates } = gatedStore();
    const writer = new GenerationWriter(store, 'g3');
    let done = false;
    const added = writer.add([page('a')]).then(() => (done = true));
    await tick();
    expect(done).toBe(false);
    gates[0]!.release();
    await added;
    expect(log).toEqual(['write 0 a', 'stored 0']);
  });
});
