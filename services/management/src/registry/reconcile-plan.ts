import type { OwnerRecord } from '@cm/contracts';
import { sameOwnerState } from './owner-record';
import type { RegistryEntry } from './owner-registry-kv';

/** What reconciliation corrects, by kind (the label of management_registry_corrections_total). */
export type CorrectionKind = 'missing' | 'outdated' | 'diverged' | 'stale' | 'invalid' | 'expired_tombstone';

export type Correction =
  | { action: 'none' }
  /** Write the user's record (compare-and-set; skipped if something newer got there first). */
  | { action: 'write'; kind: CorrectionKind }
  /** The bucket says something else at an equal or higher revision: give the user a revision past it, then publish. */
  | { action: 'bump'; kind: CorrectionKind; past: number }
  /** No such user: replace the live record by a tombstone one revision higher. */
  | { action: 'tombstone'; kind: CorrectionKind; record: OwnerRecord }
  /** Remove the key, if it still holds the value read. */
  | { action: 'purge'; kind: CorrectionKind };

/** A user that exists (deleted or not), its record as the users collection says, against the bucket's entry. */
export function planUserCorrection(desired: OwnerRecord, entry: RegistryEntry | undefined): Correction {
  if (!entry) return { action: 'write', kind: 'missing' };
  if (!entry.record) return { action: 'write', kind: 'invalid' };
  if (entry.record.revision < desired.revision) return { action: 'write', kind: 'outdated' };
  if (!sameOwnerState(entry.record, desired)) return { action: 'bump', kind: 'diverged', past: entry.record.revision };
  return { action: 'none' };
}

/**
 * A key whose user does not exist. A live record is stale: it becomes a tombstone (never a purge,
 * so an older put still in flight cannot recreate it). A tombstone stays until it is older than
 * the TTL, then goes; a value that is no record at all goes at once.
 */
export function planOrphanKey(entry: RegistryEntry, now: Date, tombstoneTtlMs: number): Correction {
  if (!entry.record) return { action: 'purge', kind: 'invalid' };
  if (!entry.record.deleted) {
    return {
      action: 'tombstone',
      kind: 'stale',
      record: { ...entry.record, revision: entry.record.revision + 1, redirect_hosts: [], deleted: true },
    };
  }
  if (now.getTime() - entry.written.getTime() > tombstoneTtlMs) return { action: 'purge', kind: 'expired_tombstone' };
  return { action: 'none' };
}
