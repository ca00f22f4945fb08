import { isPublicSuffixWildcard } from './public-suffix';

/**
 * The registry of valid owner_ids, shared between the services over NATS only.
 * Management writes it (put on user created or changed, a tombstone on user deleted); the events
 * service watches it and keeps the set in memory. It is a JetStream KV bucket, so it survives
 * restarts and a new watcher replays the current state before live updates.
 */
export interface OwnerRecord {
  /** The user's unique_id (digits), which is the owner_id of the Events API. */
  owner_id: string;
  /** Owner account the user belongs to (its own id for an account owner). */
  account_id: string;
  created_at: string;
  /**
   * Monotonic per owner (management increments it on every change of the user, its content URLs
   * or its redirect list). A writer never replaces a stored record of a higher revision, so a
   * delayed put cannot bring back an older state (or a deleted owner). 0 in records written
   * before revisions existed.
   */
  revision: number;
  /**
   * Hosts a pixel click (`r`) may redirect to for this owner: the hosts of the owner's content
   * URLs plus the owner's explicit list. Each entry is a lowercase ASCII hostname (IDNs in
   * punycode, no port, no trailing dot) or `*.` + such a hostname for any subdomain of it (not
   * the bare domain itself). At most OWNER_RECORD_LIMITS.redirectHosts entries.
   */
  redirect_hosts: string[];
  /** A deleted owner, kept as a tombstone so that no older put can resurrect it. Ingest treats it as unknown. */
  deleted?: boolean;
}

export const OWNER_RECORD_LIMITS = {
  redirectHosts: 1000,
  hostMax: 253,
} as const;

/** One entry of `redirect_hosts`: a lowercase hostname (labels of letters, digits and hyphens), optionally prefixed by `*.`. */
export const REDIRECT_HOST_PATTERN =
  /^(\*\.)?(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeOwnerRecord(record: OwnerRecord): Uint8Array {
  return encoder.encode(JSON.stringify(record));
}

/**
 * Never throws: a value that is not a record with a digit owner id is undefined. Fields added
 * after the first version default for older records (revision 0, no redirect hosts); entries of
 * `redirect_hosts` that are not valid host patterns are left out.
 */
export function decodeOwnerRecord(data: Uint8Array): OwnerRecord | undefined {
  try {
    const value = JSON.parse(decoder.decode(data)) as Partial<Record<keyof OwnerRecord, unknown>>;
    if (typeof value.owner_id !== 'string' || !/^\d{1,32}$/.test(value.owner_id)) return undefined;
    const hosts = Array.isArray(value.redirect_hosts) ? value.redirect_hosts : [];
    const record: OwnerRecord = {
      owner_id: value.owner_id,
      account_id: String(value.account_id ?? ''),
      created_at: String(value.created_at ?? ''),
      revision:
        typeof value.revision === 'number' && Number.isSafeInteger(value.revision) && value.revision >= 0
          ? value.revision
          : 0,
      redirect_hosts: hosts
        .filter((h): h is string => typeof h === 'string' && REDIRECT_HOST_PATTERN.test(h))
        .slice(0, OWNER_RECORD_LIMITS.redirectHosts),
    };
    if (value.deleted === true) record.deleted = true;
    return record;
  } catch {
    return undefined;
  }
}

/**
 * True when `hostname` (as `new URL(r).hostname` gives it: lowercase, punycode) is one of the
 * record's redirect hosts: equal to an entry, or a subdomain of a `*.` entry. A `*.` entry over a
 * public suffix (`*.com`, written before management refused them) matches nothing: it would make
 * the pixel an open redirect to every domain under that suffix.
 */
export function isRedirectHostAllowed(redirectHosts: readonly string[], hostname: string): boolean {
  const host = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  for (const entry of redirectHosts) {
    if (
      entry.startsWith('*.')
        ? host.endsWith(entry.slice(1)) && host.length > entry.length - 1 && !isPublicSuffixWildcard(entry)
        : entry === host
    )
      return true;
  }
  return false;
}

/**
 * Settings the bucket is created with, by whichever service starts first (an existing bucket is
 * opened as it is). One value per key is enough: the registry holds current state, not history.
 */
export function ownerRegistryBucketOptions(replicas: number): { history: number; replicas: number } {
  return { history: 1, replicas };
}

/** KV keys are the owner ids themselves: digits are valid KV key tokens. */
export function ownerKey(ownerId: string): string {
  return ownerId;
}
