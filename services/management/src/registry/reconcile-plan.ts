import type { OwnerRecord } from '@cm/contracts';
import { sameOwnerState } from './owner-record';
import type { RegistryEntry } from './registry-kv';

/** What reconciliation corrects, by kind (the label of the registries' corrections counters). */
export type CorrectionKind =
  'missing' | 'outdated' | 'diverged' | 'stale' | 'invalid' | 'expired_tombstone' | 'orphan_parts';

interface Revisioned {
  revision: number;
}

export type Correction<R = OwnerRecord> =
  | { action: 'none' }
  /** Write the current record (compare-and-set; skipped if something newer got there first). */
  | { action: 'write'; kind: CorrectionKind }
  /** The bucket says something else at an equal or higher revision: move the document past it, then publish. */
  | { action: 'bump'; kind: CorrectionKind; past: number }
  /** No such document: replace the live record by a tombstone one revision higher. */
  | { action: 'tombstone'; kind: CorrectionKind; record: R }
  /** Remove the key, if it still holds the value read. */
  | { action: 'purge'; kind: CorrectionKind };

/** A document that exists (deleted or not), its record as the collection says, against the bucket's entry. */
export function planCorrection<S extends Revisioned, R extends Revisioned>(
  desired: R,
  entry: RegistryEntry<S> | undefined,
  same: (stored: S, desired: R) => boolean,
): Correction<R> {
  if (!entry) return { action: 'write', kind: 'missing' };
  if (!entry.record) return { action: 'write', kind: 'invalid' };
  if (entry.record.revision < desired.revision) return { action: 'write', kind: 'outdated' };
  if (!same(entry.record, desired)) return { action: 'bump', kind: 'diverged', past: entry.record.revision };
  return { action: 'none' };
}

/**
 * A key whose document does not exist. A live record is stale: it becomes a tombstone (never a
 * purge, so an older put still in flight cannot recreate it). A tombstone stays until it is older
 * than the TTL, then goes; a value that is no record at all goes at once.
 */
export function planOrphan<S extends Revisioned & { deleted?: boolean }, R>(
  entry: RegistryEntry<S>,
  now: Date,
  tombstoneTtlMs: number,
  tombstoneOf: (stored: S) => R,
): Correction<R> {
  if (!entry.record) return { action: 'purge', kind: 'invalid' };
  if (!entry.record.deleted) return { action: 'tombstone', kind: 'stale', record: tombstoneOf(entry.record) };
  if (now.getTime() - entry.written.getTime() > tombstoneTtlMs) return { action: 'purge', kind: 'expired_tombstone' };
  return { action: 'none' };
}

/** A user's owner record against the bucket's entry. */
export function planUserCorrection(desired: OwnerRecord, entry: RegistryEntry<OwnerRecord> | undefined): Correction {
  return planCorrection(desired, entry, sameOwnerState);
}

/** The tombstone that replaces a live owner record whose user does not exist. */
export function ownerTombstone(stored: OwnerRecord): OwnerRecord {
  return { ...stored, revision: stored.revision + 1, redirect_hosts: [], deleted: true };
}

/** A key whose user does not exist (see planOrphan). */
export function planOrphanKey(entry: RegistryEntry<OwnerRecord>, now: Date, tombstoneTtlMs: number): Correction {
  return planOrphan(entry, now, tombstoneTtlMs, ownerTombstone);
}
