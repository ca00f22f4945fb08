import { createHash, hkdfSync } from 'node:crypto';

/** One AES-256-GCM key of TOKEN_ENCRYPTION_KEYS, named so that a stored token says which key sealed it. */
export interface TokenKey {
  id: string;
  key: Buffer;
}

/** Everything the token vault needs: the first encryption key seals, all of them open. */
export interface TokenKeyring {
  encryption: TokenKey[];
  /** HMAC-SHA256 key of the lookup hash (TOKEN_LOOKUP_KEY). */
  lookup: Buffer;
  /** The lookup key being rotated out (TOKEN_LOOKUP_KEY_PREVIOUS): still accepted until every hash is redone. */
  previousLookup?: Buffer;
  /** True when the keys were derived from the public development seed (keys unset outside production). */
  derived: boolean;
}

const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;
const MIN_LOOKUP_KEY_BYTES = 32;

function decodeBase64(value: string): Buffer | undefined {
  return BASE64.test(value)
    ? Buffer.from(value, value.includes('-') || value.includes('_') ? 'base64url' : 'base64')
    : undefined;
}

/**
 * TOKEN_ENCRYPTION_KEYS: `id:base64key[,id:base64key...]`, each key 32 bytes (base64 or base64url).
 * Throws an Error whose message names the problem (never the key material).
 */
export function parseEncryptionKeys(value: string): TokenKey[] {
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0) throw new Error('must list at least one id:base64key');
  const keys = entries.map((entry, index) => {
    const colon = entry.indexOf(':');
    const id = entry.slice(0, Math.max(colon, 0));
    if (!KEY_ID.test(id))
      throw new Error(`entry ${index + 1} must start with a key id of 1-32 letters, digits, _ or - and a colon`);
    const key = decodeBase64(entry.slice(colon + 1));
    if (key?.length !== 32) throw new Error(`key ${id} must be 32 bytes, base64 encoded (openssl rand -base64 32)`);
    return { id, key };
  });
  if (new Set(keys.map((k) => k.id)).size !== keys.length) throw new Error('key ids must be unique');
  return keys;
}

/** TOKEN_LOOKUP_KEY (and _PREVIOUS): at least 32 bytes, base64 encoded. */
export function parseLookupKey(value: string): Buffer {
  const key = decodeBase64(value.trim());
  if (!key || key.length < MIN_LOOKUP_KEY_BYTES)
    throw new Error(`must be at least ${MIN_LOOKUP_KEY_BYTES} bytes, base64 encoded (openssl rand -base64 32)`);
  return key;
}

export interface TokenKeySettings {
  TOKEN_ENCRYPTION_KEYS?: string;
  TOKEN_LOOKUP_KEY?: string;
  TOKEN_LOOKUP_KEY_PREVIOUS?: string;
}

/**
 * The keyring from the configuration. Outside production (where the configuration requires both
 * keys) a missing key is derived from a public seed: stable across restarts, so development data
 * stays readable, and worthless as protection, which the caller must say loudly.
 */
export function tokenKeyringFrom(settings: TokenKeySettings): TokenKeyring {
  const derived = !settings.TOKEN_ENCRYPTION_KEYS || !settings.TOKEN_LOOKUP_KEY;
  return {
    encryption: settings.TOKEN_ENCRYPTION_KEYS
      ? parseEncryptionKeys(settings.TOKEN_ENCRYPTION_KEYS)
      : [{ id: 'dev', key: developmentKey('token-encryption') }],
    lookup: settings.TOKEN_LOOKUP_KEY ? parseLookupKey(settings.TOKEN_LOOKUP_KEY) : developmentKey('token-lookup'),
    previousLookup: settings.TOKEN_LOOKUP_KEY_PREVIOUS ? parseLookupKey(settings.TOKEN_LOOKUP_KEY_PREVIOUS) : undefined,
    derived,
  };
}

const DEVELOPMENT_SEED = createHash('sha256')
  .update('campaign-events: public development seed, never for production')
  .digest();

function developmentKey(purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', DEVELOPMENT_SEED, Buffer.alloc(0), purpose, 32));
}
