import { createHash, randomBytes } from 'node:crypto';

/** Recognisable prefix (secret scanners, support) + 256 random bits, URL-safe for the query string. */
const PREFIX = 'ek_';
const KEY = /^ek_[A-Za-z0-9_-]{43}$/;

export function generateApiKey(): string {
  return PREFIX + randomBytes(32).toString('base64url');
}

/** Keys are random and long, so a fast unsalted SHA-256 is enough: there is nothing to brute-force. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** Cheap shape check: anything else cannot be a key we issued, so it is never looked up. */
export function looksLikeApiKey(value: unknown): value is string {
  return typeof value === 'string' && KEY.test(value);
}
