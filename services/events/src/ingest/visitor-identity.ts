import { createSecretKey, type KeyObject } from 'node:crypto';
import { anonymousVisitorHash, visitorIdHash } from './visitor-hash';

/** The key of vid hashes when VISITOR_ID_KEY is not set (development and tests only: production refuses to start without one). */
export const DEVELOPMENT_VISITOR_ID_KEY = 'development-only-visitor-id-key-0000000000';

/** Where the salt of the current period comes from (VisitorSalts). */
export interface SaltSource {
  current(): KeyObject | Promise<KeyObject>;
}

/**
 * The visitor of one pixel hit: the keyed hash of its `vid` when the publisher sent one, else
 * the salted hash of its client address and User-Agent. A number when it can be decided from
 * memory (nearly always), a promise only while the salt of a new period is being fetched.
 */
export class VisitorIdentity {
  private readonly key: KeyObject;

  constructor(
    key: string,
    private readonly salts: SaltSource,
  ) {
    this.key = createSecretKey(Buffer.from(key, 'utf8'));
  }

  of(ownerId: string, vid: string | undefined, address: string, userAgent: string): number | Promise<number> {
    if (vid !== undefined) return visitorIdHash(this.key, ownerId, vid);
    const salt = this.salts.current();
    return salt instanceof Promise
      ? salt.then((s) => anonymousVisitorHash(s, ownerId, address, userAgent))
      : anonymousVisitorHash(salt, ownerId, address, userAgent);
  }
}
