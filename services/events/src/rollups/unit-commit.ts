import { randomBytes } from 'node:crypto';
import type { Collection, Filter } from 'mongodb';
import type { CellDocument } from './cell-document';
import type { CellStore } from './cell-store';
import type { MarkDocument } from './mark-document';

/** Fault injection for the crash tests: a hook that throws stops the build there, like a killed process. */
export interface BuildHooks {
  afterReserve?(unitId: string): void | Promise<void>;
  afterCells?(unitId: string): void | Promise<void>;
}

const killed = new WeakSet<object>();

/** An error a build hook threw: it stands for the process dying, so no failure handling may run after it. */
export function isKilled(err: unknown): boolean {
  return typeof err === 'object' && err !== null && killed.has(err);
}

async function runHook(hook: () => void | Promise<void>): Promise<void> {
  try {
    await hook();
  } catch (err) {
    if (typeof err === 'object' && err !== null) killed.add(err);
    throw err;
  }
}

/**
 * The builder's half of the rollup protocol for one unit: reserve a new generation on the mark
 * (so an abandoned one can be swept), write its cells, then compare-and-set the mark to the
 * snapshot the cells were computed for. The set succeeds only when no write started or finished
 * since the snapshot, the generation it replaces is still current, the reservation was not swept
 * and retention did not retire the unit; the winner drops the replaced generation, a loser its own.
 */
export class UnitCommit {
  constructor(
    private readonly marks: Collection<MarkDocument>,
    private readonly cells: CellStore,
    private readonly hooks: BuildHooks = {},
  ) {}

  /** A new generation id reserved on the unit's mark, or undefined when the mark moved on already. */
  async reserve(snapshot: MarkDocument, now: Date): Promise<string | undefined> {
    const g = `${snapshot._id}@${now.getTime().toString(36)}-${randomBytes(6).toString('hex')}`;
    const res = await this.marks.updateOne(
      { _id: snapshot._id, s: snapshot.s, f: snapshot.f, retired: { $exists: false } },
      { $push: { pending: { g, at: now } } },
    );
    if (res.modifiedCount !== 1) return undefined;
    await runHook(() => this.hooks.afterReserve?.(snapshot._id));
    return g;
  }

  /** Writes the generation's cells and publishes it; true when this build became current. */
  async commit(snapshot: MarkDocument, g: string, docs: readonly CellDocument[]): Promise<boolean> {
    await this.cells.insert(g, docs);
    await runHook(() => this.hooks.afterCells?.(snapshot._id));
    const filter: Filter<MarkDocument> = {
      _id: snapshot._id,
      s: snapshot.s,
      f: snapshot.f,
      'pending.g': g,
      retired: { $exists: false },
    };
    if (snapshot.b) filter['b.g'] = snapshot.b.g;
    else filter.b = { $exists: false };
    const res = await this.marks.updateOne(filter, {
      $set: { b: { s: snapshot.s, f: snapshot.f, g }, dirty: false },
      $pull: { pending: { g } },
    });
    if (res.modifiedCount === 1) {
      // published: a failure from here on must not be taken for a failed build (whose cleanup
      // would drop these cells); the replaced generation is unreachable, a failed drop only
      // leaves its documents behind
      if (snapshot.b) await this.cells.dropGenerations([snapshot.b.g]).catch(() => undefined);
      return true;
    }
    await this.abandon(snapshot._id, g);
    return false;
  }

  /** Gives a reservation up: its cells go, then the reservation (a crash in between leaves it for the sweep). */
  async abandon(unitId: string, g: string): Promise<void> {
    await this.cells.dropGenerations([g]);
    await this.marks.updateOne({ _id: unitId }, { $pull: { pending: { g } } });
  }

  /**
   * Drops generations reserved longer than `olderThan` ago and never published (a builder died).
   * The reservation is pulled first: once it is gone that build can no longer publish, so its
   * cells are safe to drop even if it is still running.
   */
  async sweep(olderThan: Date): Promise<number> {
    const stale = await this.marks.find({ 'pending.at': { $lt: olderThan } }, { projection: { pending: 1 } }).toArray();
    let swept = 0;
    for (const mark of stale) {
      for (const p of mark.pending ?? []) {
        if (p.at >= olderThan) continue;
        const res = await this.marks.updateOne({ _id: mark._id, 'pending.g': p.g }, { $pull: { pending: { g: p.g } } });
        if (res.modifiedCount === 1) {
          await this.cells.dropGenerations([p.g]);
          swept++;
        }
      }
    }
    return swept;
  }
}
