import type { Logger } from '@cm/platform';
import { planCorrection, planOrphan, type Correction, type CorrectionKind } from './reconcile-plan';
import type { RegistryEntry, WriteOutcome } from './registry-kv';

/** One document of the source-of-truth collection and the record it makes now. */
export interface ReconcileItem<R> {
  id: string;
  /** The document's revision as read (what a bump is conditional on). */
  revision: number;
  /** Its announcement is pending: the relay's, not reconciliation's. */
  pending: boolean;
  desired: R;
}

export interface RegistryReconcilerDeps<
  S extends { revision: number; deleted?: boolean },
  R extends { revision: number },
> {
  /** Names the registry in logs. */
  what: string;
  /** Every document in chunks (a stop signal ends a pass between chunks). */
  items(): AsyncIterable<ReconcileItem<R>[]>;
  /** Which of these ids still exist (deleted ones included: their tombstones are still being announced). */
  existing(ids: string[]): Promise<Set<string>>;
  /** Moves a document past `atLeast`, unless it changed since it was read at `revision`. */
  bumpPast(id: string, revision: number, atLeast: number): Promise<boolean>;
  /** Publishes a document's current record. */
  publish(id: string): Promise<void>;
  registry: {
    entries(): Promise<Map<string, RegistryEntry<S>>>;
    write(record: R): Promise<WriteOutcome>;
    purge(key: string, sequence: number): Promise<boolean>;
  };
  /** The stored record says what the desired one says (its revision aside). */
  same(stored: S, desired: R): boolean;
  /** The tombstone, one revision higher, that replaces a live record without a document. */
  tombstoneOf(stored: S): R;
  /** More to reconcile once the keys are (a large record's parts); returns its corrections. */
  afterKeys?(stop?: AbortSignal): Promise<number>;
  /** Counts each correction made (metrics). */
  onCorrection(kind: CorrectionKind): void;
  tombstoneTtlMs: number;
  logger: Logger;
  now?: () => Date;
}

/** Orphan keys checked per query. */
const BATCH = 500;

/**
 * Makes a registry bucket say what its collection says (the source of truth): every document's
 * record present at its revision with its current state, every key without a document a
 * tombstone (purged once older than the TTL). Documents with a pending announcement are the
 * relay's; every write is compare-and-set on the revision, so a pass never undoes a newer live
 * write and several replicas may reconcile at once.
 */
export class RegistryReconciler<S extends { revision: number; deleted?: boolean }, R extends { revision: number }> {
  private readonly now: () => Date;

  constructor(private readonly deps: RegistryReconcilerDeps<S, R>) {
    this.now = deps.now ?? (() => new Date());
  }

  /** One pass; returns how many corrections it made. A stop signal ends it between chunks (the next pass does the rest). */
  async run(stop?: AbortSignal): Promise<number> {
    const entries = await this.deps.registry.entries();
    const seen = new Set<string>();
    let corrections = 0;
    for await (const chunk of this.deps.items()) {
      if (stop?.aborted) return corrections;
      for (const item of chunk) {
        seen.add(item.id);
        if (!item.pending) corrections += await this.correct(item, entries.get(item.id));
      }
    }
    corrections += await this.correctOrphans([...entries.values()].filter((e) => !seen.has(e.key)));
    if (this.deps.afterKeys && !stop?.aborted) corrections += await this.deps.afterKeys(stop);
    if (corrections > 0) this.deps.logger.warn(`${this.deps.what} reconciled`, { corrections });
    return corrections;
  }

  private async correct(item: ReconcileItem<R>, entry: RegistryEntry<S> | undefined): Promise<number> {
    const correction = planCorrection(item.desired, entry, this.deps.same);
    if (correction.action === 'write' && (await this.deps.registry.write(item.desired)) === 'written')
      return this.count(correction);
    if (correction.action === 'bump' && (await this.deps.bumpPast(item.id, item.revision, correction.past))) {
      await this.deps.publish(item.id);
      return this.count(correction);
    }
    return 0;
  }

  /** Keys the documents pass did not meet; each is checked again (a document may have been created meanwhile). */
  private async correctOrphans(candidates: RegistryEntry<S>[]): Promise<number> {
    let corrections = 0;
    for (let i = 0; i < candidates.length; i += BATCH) {
      const batch = candidates.slice(i, i + BATCH);
      const existing = await this.deps.existing(batch.map((e) => e.key));
      for (const entry of batch.filter((e) => !existing.has(e.key))) {
        const correction = planOrphan(entry, this.now(), this.deps.tombstoneTtlMs, this.deps.tombstoneOf);
        if (correction.action === 'tombstone' && (await this.deps.registry.write(correction.record)) === 'written')
          corrections += this.count(correction);
        if (correction.action === 'purge' && (await this.deps.registry.purge(entry.key, entry.sequence)))
          corrections += this.count(correction);
      }
    }
    return corrections;
  }

  private count(correction: Exclude<Correction<R>, { action: 'none' }>): number {
    this.deps.onCorrection(correction.kind);
    return 1;
  }
}
