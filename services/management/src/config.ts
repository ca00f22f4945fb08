import Joi from 'joi';
import {
  ConfigError,
  baseConfigSchema,
  configSchema,
  loadConfig,
  optionalSetting,
  setting,
  type ConfigOf,
} from '@cm/platform';
import { REDIRECT_HOSTS_MAX } from './redirect-hosts/redirect-host-schemas';
import { parseEncryptionKeys, parseLookupKey } from './tokens/token-keys';

/** Joi with `commaList`: an array that also accepts one comma-separated string (environment values). */
const EnvJoi = Joi.extend((joi) => ({
  type: 'commaList',
  base: joi.array(),
  coerce: {
    from: 'string',
    method: (value: string) => ({
      value: value
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== ''),
    }),
  },
})) as typeof Joi & { commaList(): Joi.ArraySchema };

/** A secret that `parse` accepts; the message names the problem, never the value. */
const secretParsedBy = (parse: (value: string) => unknown) =>
  Joi.string().custom((value: string, helpers) => {
    try {
      parse(value);
      return value;
    } catch (err) {
      return helpers.message({ custom: `{{#label}} ${(err as Error).message}` });
    }
  });
const requiredInProduction = (schema: Joi.StringSchema) =>
  optionalSetting(schema.when('NODE_ENV', { is: 'production', then: Joi.required(), otherwise: Joi.optional() }));

const settings = {
  ...baseConfigSchema,
  MANAGEMENT_PORT: Joi.number().port().default(3000),
  MONGO_DB: Joi.string()
    .pattern(/^[A-Za-z0-9_-]{1,63}$/)
    .default('management'),
  BODY_LIMIT: Joi.string()
    .pattern(/^\d+(b|kb|mb)$/)
    .default('64kb'),
  OWNER_REGISTRY_BUCKET: Joi.string()
    .pattern(/^[A-Za-z0-9_-]+$/)
    .default('owner_registry'),
  /** Replicas of the registry bucket when this service creates it (3 on a JetStream cluster). */
  OWNER_REGISTRY_REPLICAS: Joi.number().integer().valid(1, 3, 5).default(1),
  /** The campaign registry bucket (the events service's campaign filter and scorecard read it), and its replicas when this service creates it. */
  CAMPAIGN_REGISTRY_BUCKET: Joi.string()
    .pattern(/^[A-Za-z0-9_-]+$/)
    .default('campaign_registry'),
  CAMPAIGN_REGISTRY_REPLICAS: Joi.number().integer().valid(1, 3, 5).default(1),
  // the relay, the wait and the reconciliation apply to both registries (owners and campaigns)
  REGISTRY_RELAY_INTERVAL_MS: Joi.number().integer().min(100).default(5000),
  /** How long a request waits for its registry write before leaving it to the relay. */
  REGISTRY_SYNC_TIMEOUT_MS: Joi.number().integer().min(100).max(10_000).default(1500),
  /** How often the registry buckets are made equal to the users and campaigns collections (also once at start). */
  REGISTRY_RECONCILE_INTERVAL_MS: Joi.number().integer().min(1000).default(300_000),
  /** Tombstones of users and campaigns that no longer exist are purged by reconciliation once this old. */
  REGISTRY_TOMBSTONE_TTL_DAYS: Joi.number().integer().min(1).max(3650).default(30),
  TITLE_FETCH_TIMEOUT_MS: Joi.number().integer().min(100).max(60000).default(5000),
  TITLE_FETCH_MAX_BYTES: Joi.number()
    .integer()
    .min(1024)
    .max(10_000_000)
    .default(512 * 1024),
  TITLE_FETCH_MAX_REDIRECTS: Joi.number().integer().min(0).max(10).default(3),
  /** Test-only: lets the title fetcher reach loopback (tests serve pages on 127.0.0.1). */
  TITLE_FETCH_ALLOW_LOOPBACK: Joi.boolean().default(false),
  /** Rate limits per process (429 beyond them; operations.md section 13). */
  API_RATE_LIMIT_PER_MINUTE: Joi.number().integer().min(1).default(600),
  API_EXPENSIVE_RATE_LIMIT_PER_MINUTE: Joi.number().integer().min(1).default(30),
  AUTH_FAILURE_RATE_LIMIT_PER_MINUTE: Joi.number().integer().min(1).default(60),
  // false (the socket's address), a hop count, or a comma list of trusted proxy addresses/subnets
  /** Express `trust proxy`: which hops' X-Forwarded-For to believe for the client address. */
  TRUST_PROXY: setting<boolean | number | string>(
    Joi.alternatives(
      Joi.boolean(),
      Joi.number().integer().min(0).max(10),
      Joi.string().pattern(/^[0-9A-Za-z.:/, ]{1,500}$/),
    ).default(false),
  ),
  /** Quotas (409 `conflict` beyond them; operations.md section 13). */
  QUOTA_SUB_USERS_PER_ACCOUNT: Joi.number().integer().min(0).max(1_000_000).default(100),
  QUOTA_CAMPAIGNS_PER_USER: Joi.number().integer().min(0).max(1_000_000).default(1000),
  // content is embedded in its campaign document (16 MB at most): 5000 items of 2 KB URLs, each with a
  // 22-character page key (never a second URL) and a title of 500 two-byte characters, stay below
  // (content-document-size.test.ts)
  QUOTA_CONTENT_PER_CAMPAIGN: Joi.number().integer().min(1).max(5000).default(1000),
  QUOTA_REDIRECT_HOSTS_PER_USER: Joi.number().integer().min(0).max(REDIRECT_HOSTS_MAX).default(REDIRECT_HOSTS_MAX),
  /** `id:base64key,...` (AES-256-GCM, 32 bytes each): the first seals api_tokens, all open them. Required in production. */
  TOKEN_ENCRYPTION_KEYS: requiredInProduction(secretParsedBy(parseEncryptionKeys)),
  /** HMAC key (>= 32 bytes, base64) of the api_token lookup hash. Required in production. */
  TOKEN_LOOKUP_KEY: requiredInProduction(secretParsedBy(parseLookupKey)),
  /** The lookup key being rotated out: still accepted until the rekey pass has redone every hash. */
  TOKEN_LOOKUP_KEY_PREVIOUS: optionalSetting(secretParsedBy(parseLookupKey)),
  /** Ports the title fetcher connects to (comma list in the environment). */
  TITLE_FETCH_ALLOWED_PORTS: setting<number[]>(
    EnvJoi.commaList().items(Joi.number().integer().min(1).max(65535)).min(1).unique().default([80, 443]),
  ),
};

export type ManagementConfig = ConfigOf<typeof settings>;

const schema = configSchema(settings);

export function loadManagementConfig(env: NodeJS.ProcessEnv): ManagementConfig {
  const config = loadConfig(schema, env);
  if (config.TITLE_FETCH_ALLOW_LOOPBACK && config.NODE_ENV === 'production') {
    throw new ConfigError(
      'invalid configuration:\n  TITLE_FETCH_ALLOW_LOOPBACK: a test-only setting, refused in production',
    );
  }
  return config;
}
