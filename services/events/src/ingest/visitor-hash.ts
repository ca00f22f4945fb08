import { createHmac, type KeyObject } from 'node:crypto';

/** Visitor hashes are below this bound: 52 bits, so that a JS number holds them exactly. */
export const VISITOR_HASH_BOUND = 2 ** 52;

/** The first 52 bits of a digest, as a number in [0, 2^52). */
function first52Bits(digest: Buffer): number {
  // 48 bits as one read, then the high nibble of the seventh byte
  return digest.readUIntBE(0, 6) * 16 + (digest[6]! >> 4);
}

/**
 * The visitor of a hit that names one (`vid`): a keyed hash, so that the publisher's id cannot
 * be recovered from the stored number nor matched across owners. Every input is prefixed and
 * NUL-separated so that no two different (owner, vid) pairs hash the same text.
 */
export function visitorIdHash(key: KeyObject | Buffer, ownerId: string, vid: string): number {
  return first52Bits(createHmac('sha256', key).update(`vid\0${ownerId}\0${vid}`).digest());
}

/**
 * The visitor of a cookieless hit: address and User-Agent under the salt of the current period.
 * Once the salt is deleted the number can no longer be tied back to an address.
 */
export function anonymousVisitorHash(
  salt: KeyObject | Buffer,
  ownerId: string,
  address: string,
  userAgent: string,
): number {
  return first52Bits(createHmac('sha256', salt).update(`anon\0${ownerId}\0${address}\0${userAgent}`).digest());
}
