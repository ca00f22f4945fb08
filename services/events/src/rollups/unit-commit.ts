import { randomBytes } from 'node:crypto';
import type { Collection } from 'mongodb';
import type { CellStore } from './cell-store';
import { publishFilter, publishUpdate, reserveFilter, type MarkDocument } from './mark-document';
import type { UnitMark } from './unit-mark';
import { unitOfGeneration } from './broken-units';

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
  async reserve(snapshot: UnitMark, now: Date): Promise<string | undefined> {
    const g = generationId(snapshot.id, now);
    const res = await this.marks.updateOne(reserveFilter(snapshot), { $push: { pending: { g, at: now } } });
    if (res.modifiedCount !== 1) return undefined;
    await runHook(() => this.hooks.afterReserve?.(snapshot.id));
    return g;
  }

  /**
   * Publishes a generation whose pages are written (and complete); true when this build became
   * current. A publish whose outcome is unknown (the connection dropped, the driver gave up
   * waiting) may have been applied, or may still be: the mark is asked before the build is called
   * failed, and whatever happens after, the clean-up never drops cells a mark may point at (abandon).
   * `lost`: owners left out of these cells (their pages below did not decode and cannot be computed again).
   */
  async publish(snapshot: UnitMark, g: string, lost: readonly string[] = []): Promise<boolean> {
    await runHook(() => this.hooks.afterCells?.(snapshot.id));
    let published: boolean;
    try {
      const res = await this.marks.updateOne(publishFilter(snapshot, g), publishUpdate(snapshot, g, lost));
      published = res.modifiedCount === 1;
    } catch (err) {
      // unknown outcome: published if the mark says so; if asking fails too, the caller's
      // clean-up (abandon) is still safe, since it only drops what can no longer be published
      if (!(await this.isCurrent(snapshot.id, g).catch(() => false))) throw err;
      published = true;
    }
    if (published) {
      // a failure from here on must not be taken for a failed build (whose cleanup would drop
      // these cells); the replaced generation is unreachable, a failed drop only leaves its
      // documents behind
      if (snapshot.built) await this.cells.dropGenerations([snapshot.built.generation]).catch(() => undefined);
      return true;
    }
    await this.abandon(snapshot.id, g);
    return false;
  }

  /** Whether the unit's mark points at generation `g`. */
  private async isCurrent(unitId: string, g: string): Promise<boolean> {
    const mark = await this.marks.findOne({ _id: unitId }, { projection: { b: 1 } });
    return mark?.b?.g === g;
  }

  /**
   * Gives a reservation up. The reservation goes first, and the cells only if that removal was
   * applied: a publish requires the reservation, so once it is gone no publish of `g` can land
   * any more, while a publish that landed first (its answer lost, or late) took the reservation
   * with it and keeps its cells. A removal whose outcome is unknown drops nothing (its cells,
   * if unreachable, go with the orphan sweep).
   */
  async abandon(unitId: string, g: string): Promise<void> {
    const res = await this.marks.updateOne({ _id: unitId, 'pending.g': g }, { $pull: { pending: { g } } });
    if (res.modifiedCount === 1) await this.cells.dropGenerations([g]);
  }

  /**
   * Drops generations that have cells or a manifest but that no mark points at, published or
   * reserved, and were reserved before `olderThan`: left by a clean-up whose outcome was unknown,
   * or by retention dying between a mark and its cells. The manifests are listed before the marks
   * are read: a generation neither published nor reserved at that read can never be published
   * (a publish needs its reservation), so it is safe to drop.
   */
  async sweepOrphans(olderThan: Date): Promise<number> {
    const old = (await this.cells.manifestedGenerations()).filter((g) => {
      const at = reservedAt(g);
      return at !== undefined && at < olderThan.getTime();
    });
    if (old.length === 0) return 0;
    const live = new Set<string>();
    const units = [...new Set(old.map(unitOfGeneration))];
    for (let i = 0; i < units.length; i += 1000) {
      const marks = await this.marks
        .find({ _id: { $in: units.slice(i, i + 1000) } }, { projection: { b: 1, pending: 1 } })
        .toArray();
      for (const m of marks) {
        if (m.b) live.add(m.b.g);
        for (const p of m.pending ?? []) live.add(p.g);
      }
    }
    const orphans = old.filter((g) => !live.has(g));
    if (orphans.length > 0) await this.cells.dropGenerations(orphans);
    return orphans.length;
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

/** A new generation id: the unit, when it was reserved (base 36 ms) and random bits. */
function generationId(unitId: string, now: Date): string {
  return `${unitId}@${now.getTime().toString(36)}-${randomBytes(6).toString('hex')}`;
}

/** When a generation was reserved (from its id); undefined for an id of another shape. */
function reservedAt(g: string): number | undefined {
  const m = /@([0-9a-z]+)-[0-9a-f]+$/.exec(g);
  if (!m) return undefined;
  const t = parseInt(m[1]!, 36);
  return Number.isSafeInteger(t) ? t : undefined;
}
