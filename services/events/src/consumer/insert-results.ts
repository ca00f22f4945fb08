import { DATABASE_UNAVAILABLE_CODES, DUPLICATE_KEY, OUT_OF_DISK_SPACE, isStoreFullError } from '@cm/platform';

/** What became of one document of an unordered insertMany. */
export type InsertResult =
  | { status: 'written' }
  | { status: 'duplicate' }
  /** The server refused this document (not a duplicate, not a known passing condition): retrying it may never help. */
  | { status: 'rejected'; message: string }
  /** The write as a whole failed (connection, election, timeout, a full store): retrying will help. */
  | { status: 'failed'; message: string; storeFull?: boolean };

interface WriteErrorLike {
  index: number;
  code?: number;
  errmsg?: string;
}

interface BulkErrorLike {
  writeErrors?: WriteErrorLike | WriteErrorLike[];
  writeConcernError?: unknown;
  result?: { getWriteConcernError?: () => unknown };
  message?: string;
}

/**
 * Per-document error codes that say nothing about the document: the node was not (or no longer)
 * primary, was stepping down or shutting down, ran out of time (maxTimeMS, lock or write-concern
 * waits) or lost a network link to a shard. A router reports them per document after an outage or
 * an election; they pass, so the document is retried without limit like a failed write.
 */
const TRANSIENT_CODES = new Set([
  ...DATABASE_UNAVAILABLE_CODES,
  24, // LockTimeout
  46, // LockBusy
  112, // WriteConflict
  202, // NetworkInterfaceExceededTimeLimit
  OUT_OF_DISK_SPACE,
]);

const WRITTEN: InsertResult = { status: 'written' };
const DUPLICATE: InsertResult = { status: 'duplicate' };

/**
 * Reads an insertMany failure per document. An unordered bulk insert attempts every document
 * and lists each failed one in writeErrors, so a document not listed there was written; a
 * duplicate key means an earlier delivery already stored it. Anything without per-document
 * errors, or with a write-concern error, leaves every document's fate unknown: all are retried
 * (a retry of a written one then comes back as a duplicate). A full store (OutOfDiskSpace, for
 * the whole write or per document) is never the document's fault: those are retried until space
 * is freed, never dead-lettered; nor is any other per-document error that only reports the
 * database's state (TRANSIENT_CODES).
 */
export function insertResults(count: number, err: unknown): InsertResult[] {
  const e = (err ?? {}) as BulkErrorLike;
  const full: InsertResult | undefined = isStoreFullError(err)
    ? { status: 'failed', message: `the database is full: ${e.message ?? String(err)}`, storeFull: true }
    : undefined;
  const raw = e.writeErrors;
  const writeErrors = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  const concernError = e.writeConcernError ?? e.result?.getWriteConcernError?.();
  if (writeErrors.length === 0 || concernError) {
    const failed: InsertResult = full ?? { status: 'failed', message: e.message ?? String(err) };
    return Array.from({ length: count }, () => failed);
  }
  const results: InsertResult[] = Array.from({ length: count }, () => WRITTEN);
  for (const we of writeErrors) {
    if (we.index < 0 || we.index >= count) continue;
    if (we.code === DUPLICATE_KEY) results[we.index] = DUPLICATE;
    else if (full && we.code === OUT_OF_DISK_SPACE) results[we.index] = full;
    else if (we.code !== undefined && TRANSIENT_CODES.has(we.code))
      results[we.index] = { status: 'failed', message: we.errmsg ?? `write error ${String(we.code)}` };
    else results[we.index] = { status: 'rejected', message: we.errmsg ?? `write error ${String(we.code)}` };
  }
  return results;
}
