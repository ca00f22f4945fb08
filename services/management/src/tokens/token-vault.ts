import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { TokenKey, TokenKeyring } from './token-keys';

/** What a user document stores about its api_token: never the token itself. */
export interface StoredToken {
  /** `v1.<key id>.<iv>.<ciphertext>.<tag>` (base64url parts), AES-256-GCM bound to the user id. */
  api_token_enc: string;
  /** HMAC-SHA256 of the token under the lookup key: what bearer auth looks up (unique index). */
  api_token_hash: string;
  /** Which keys produced the two above (`<encryption key id>/<lookup key fingerprint>`); the rekey pass looks for other values. */
  token_keys: string;
}

export class TokenDecryptError extends Error {}

const FORMAT = 'v1';
const IV_BYTES = 12;

/**
 * Seals api_tokens at rest (AES-256-GCM, key from TOKEN_ENCRYPTION_KEYS) and makes the keyed
 * lookup hash. The user id is the additional authenticated data, so a sealed token copied onto
 * another user's document does not open.
 */
export class TokenVault {
  /** Identifies the current keys; documents carrying another value are rekeyed. */
  readonly keysTag: string;
  private readonly byId: Map<string, TokenKey>;

  constructor(private readonly keyring: TokenKeyring) {
    this.byId = new Map(keyring.encryption.map((k) => [k.id, k]));
    this.keysTag = `${this.current.id}/${hmac(keyring.lookup, 'key fingerprint').slice(0, 12)}`;
  }

  private get current(): TokenKey {
    return this.keyring.encryption[0]!;
  }

  /** The stored form of `token` for the user `userId`, under the current keys. */
  seal(token: string, userId: string): StoredToken {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv);
    cipher.setAAD(Buffer.from(userId));
    const ciphertext = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
    const parts = [
      FORMAT,
      this.current.id,
      iv.toString('base64url'),
      ciphertext.toString('base64url'),
      cipher.getAuthTag().toString('base64url'),
    ];
    return { api_token_enc: parts.join('.'), api_token_hash: this.lookupHash(token), token_keys: this.keysTag };
  }

  /** The token of a stored form; throws TokenDecryptError when it is malformed, tampered with or its key is gone. */
  open(sealed: string, userId: string): string {
    const [format, keyId, iv, ciphertext, tag, ...rest] = sealed.split('.');
    const key = keyId === undefined ? undefined : this.byId.get(keyId);
    if (format !== FORMAT || rest.length > 0 || !iv || ciphertext === undefined || !tag)
      throw new TokenDecryptError('not a sealed api_token');
    if (!key) throw new TokenDecryptError(`sealed with key "${keyId}", which TOKEN_ENCRYPTION_KEYS no longer lists`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key.key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(userId));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new TokenDecryptError('sealed api_token does not authenticate');
    }
  }

  /** The hash bearer auth looks up (current lookup key). */
  lookupHash(token: string): string {
    return hmac(this.keyring.lookup, token);
  }

  /** The hash under the lookup key being rotated out, when one is configured. */
  previousLookupHash(token: string): string | undefined {
    return this.keyring.previousLookup ? hmac(this.keyring.previousLookup, token) : undefined;
  }
}

function hmac(key: Buffer, value: string): string {
  return createHmac('sha256', key).update(value).digest('base64url');
}
