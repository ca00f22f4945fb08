import { hkdfSync } from 'node:crypto';
import type { Router } from 'express';
import type { Collection } from 'mongodb';
import type { Logger } from '@cm/platform';
import type { TokenResolver } from '../auth/bearer-auth';
import type { UserDocument } from '../users/user-store';
import { ApiTokenResolver } from './api-token-resolver';
import { tokenAdminRoutes } from './token-admin-routes';
import { tokenKeyringFrom, type TokenKeySettings } from './token-keys';
import { TokenRekey } from './token-rekey';
import { TokenVault } from './token-vault';
import { UserTokenStore } from './user-token-store';

export interface TokenFeature {
  vault: TokenVault;
  /** A key for other MACs of this service (list cursors), derived from TOKEN_LOOKUP_KEY. */
  deriveKey(purpose: string): Buffer;
  /** Bearer auth's lookup. */
  resolver: TokenResolver;
  /** Operator routes, mounted under /admin/v1. */
  adminRouter: Router;
}

/**
 * api_tokens at rest: sealed with TOKEN_ENCRYPTION_KEYS, found by an HMAC under TOKEN_LOOKUP_KEY.
 * Before the service takes requests, every stored token is brought to the current keys (plaintext
 * documents of earlier versions included), then the lookup index is built.
 */
export async function createTokenFeature(deps: {
  users: Collection<UserDocument>;
  settings: TokenKeySettings;
  logger: Logger;
}): Promise<TokenFeature> {
  const keyring = tokenKeyringFrom(deps.settings);
  if (keyring.derived) {
    deps.logger.warn(
      'TOKEN_ENCRYPTION_KEYS or TOKEN_LOOKUP_KEY is unset: api tokens are sealed with keys derived from a PUBLIC development seed and are NOT protected at rest. Set both (required when NODE_ENV=production).',
    );
  }
  const vault = new TokenVault(keyring);
  const store = new UserTokenStore(deps.users);
  const rekey = new TokenRekey(deps.users, vault, deps.logger);
  await store.dropLegacyIndex();
  await rekey.run();
  await store.ensureLookupIndex();
  return {
    vault,
    deriveKey: (purpose) => Buffer.from(hkdfSync('sha256', keyring.lookup, Buffer.alloc(0), purpose, 32)),
    resolver: new ApiTokenResolver(store, vault),
    adminRouter: tokenAdminRoutes(rekey),
  };
}
