/**
 * The fields of a user document that make its owner record (see owner-record.ts) and track its
 * announcement. A change that alters the record increments `revision` and sets `registry_pending`
 * in the same write as the change itself, so no crash can separate a change from its announcement.
 */
export interface RegistryFields {
  /** Revision of the owner record; 0 in documents written before revisions existed (set at start). */
  revision: number;
  /** The record at `revision` is not yet known to be in the bucket; cleared by the announcer. */
  registry_pending?: true;
  /** The user's explicit redirect hosts (the content hosts are added when the record is built). */
  redirect_hosts?: string[];
  /** The user is deleted: its record is a tombstone; the document goes once that is announced. */
  deleted_at?: Date;
}

/** Filter part: users not deleted. */
export const LIVE = { deleted_at: { $exists: false } } as const;

/** Update parts that announce a change, to merge into the write that makes it. */
export function announcing<T extends object>(set: T): { $set: T & { registry_pending: true }; $inc: { revision: 1 } } {
  return { $set: { ...set, registry_pending: true }, $inc: { revision: 1 } };
}
