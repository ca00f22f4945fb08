import { OWNER_RECORD_LIMITS, REDIRECT_HOST_PATTERN, isPublicSuffixWildcard, type OwnerRecord } from '@cm/contracts';

/** What the record of a user is built from (fields of the user document). */
export interface RegistryUser {
  _id: string;
  account_id: string;
  created_at: Date;
  /** Incremented in the same write as every change that alters the record. */
  revision: number;
  /** The user's own list (already normalised); the content hosts come on top. */
  redirect_hosts?: string[];
  /** Set when the user is deleted: the record becomes a tombstone. */
  deleted_at?: Date;
}

/**
 * The owner record of a user at its current revision: its explicit redirect hosts first, then the
 * hosts of its content URLs (sorted), without repeats and bounded by the contract's limit. A
 * wildcard over a public suffix stored before such entries were refused is left out (reconciliation
 * then rewrites records that still carry one). A deleted user is a tombstone with no hosts.
 */
export function buildOwnerRecord(user: RegistryUser, contentHosts: readonly string[]): OwnerRecord {
  const record: OwnerRecord = {
    owner_id: user._id,
    account_id: user.account_id,
    created_at: user.created_at.toISOString(),
    revision: user.revision,
    redirect_hosts: [],
  };
  if (user.deleted_at) return { ...record, deleted: true };
  const explicit = (user.redirect_hosts ?? []).filter((host) => !isPublicSuffixWildcard(host));
  const hosts = new Set([...explicit, ...[...contentHosts].sort()]);
  return { ...record, redirect_hosts: [...hosts].slice(0, OWNER_RECORD_LIMITS.redirectHosts) };
}

/** Equal apart from the revision: what the bucket holds says the same as what the users collection says. */
export function sameOwnerState(a: OwnerRecord, b: OwnerRecord): boolean {
  const hosts = (r: OwnerRecord) => JSON.stringify([...r.redirect_hosts].sort());
  return (
    a.owner_id === b.owner_id &&
    a.account_id === b.account_id &&
    a.created_at === b.created_at &&
    Boolean(a.deleted) === Boolean(b.deleted) &&
    hosts(a) === hosts(b)
  );
}

/**
 * The redirect host a content URL contributes: its hostname as WHATWG URL parsing gives it
 * (lowercase, punycode, no port), without a trailing dot; "" when the host cannot be a registry
 * entry (an IPv6 literal, for instance).
 */
export function redirectHostOf(url: string): string {
  let hostname: string;
  try {
    hostname = new URL(url).hostname;
  } catch {
    return '';
  }
  const host = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  return REDIRECT_HOST_PATTERN.test(host) ? host : '';
}
