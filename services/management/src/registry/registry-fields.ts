/**
 * The fields of a document that make a registry record and track its announcement (a user's
 * owner record, a campaign's campaign record). A change that alters the record increments
 * `revision` and sets `registry_pending` in the same write as the change itself, so no crash can
 * separate a change from its announcement.
 */
export interface AnnouncedFields {
  /** Revision of the record; 0 in documents written before revisions existed (set at start). */
  revision: number;
  /** true: the record at `revision` is not yet known to be in the bucket; cleared by the announcer (removed, or false). */
  registry_pending?: boolean;
  /** Deleted: the record is a tombstone; the document goes once that is announced. */
  deleted_at?: Date;
}

/** A user document's registry fields: the owner record's, and the user's explicit redirect hosts. */
export interface RegistryFields extends AnnouncedFields {
  /** The user's explicit redirect hosts (the content hosts are added when the record is built). */
  redirect_hosts?: string[];
}

/** Filter part: documents not deleted. */
export const LIVE = { deleted_at: { $exists: false } } as const;

/** Update parts that announce a change, to merge into the write that makes it. */
export function announcing<T extends object>(set: T): { $set: T & { registry_pending: true }; $inc: { revision: 1 } } {
  return { $set: { ...set, registry_pending: true }, $inc: { revision: 1 } };
}
