import { randomBytes } from 'node:crypto';
import Joi from 'joi';
import {
  ConfigError,
  baseConfigSchema,
  configSchema,
  loadConfig,
  optionalSetting,
  setting,
  type ConfigOf,
} from './config';

const schema = Joi.object({ ...baseConfigSchema, PORT: Joi.number().port().default(3000) });

describe('loadConfig', () => {
  test('when the environment is empty, then defaults apply', () => {
    const c = loadConfig(schema, {});
    expect(c).toMatchObject({ PORT: 3000, LOG_LEVEL: 'info', NODE_ENV: 'development' });
  });

  test('when values are wrong, then it fails fast listing every problem', () => {
    expect(() => loadConfig(schema, { PORT: 'x', LOG_LEVEL: 'loud' })).toThrow(ConfigError);
    expect(() => loadConfig(schema, { PORT: 'x', LOG_LEVEL: 'loud' })).toThrow(
      /PORT[\s\S]*LOG_LEVEL|LOG_LEVEL[\s\S]*PORT/,
    );
  });

  test('when MONGO_URL names a replica set of several hosts, then it is accepted; a non-mongodb URL is refused', () => {
    const url = 'mongodb://u:p@mongo-0.mongo:27017,mongo-1.mongo:27017,mongo-2.mongo:27017/?replicaSet=rs0&w=majority';
    expect(loadConfig(schema, { MONGO_URL: url }).MONGO_URL).toBe(url);
    expect(() => loadConfig(schema, { MONGO_URL: 'http://example.com' })).toThrow(/MONGO_URL/);
  });

  test('when production runs without ADMIN_TOKEN, then it refuses to start', () => {
    expect(() => loadConfig(schema, { NODE_ENV: 'production' })).toThrow(/ADMIN_TOKEN/);
  });

  test('when production gets a random 32-byte token, then it starts', () => {
    const token = randomBytes(32).toString('hex');
    expect(loadConfig(schema, { NODE_ENV: 'production', ADMIN_TOKEN: token }).ADMIN_TOKEN).toBe(token);
  });

  test.each([
    ['the old compose default', 'local-compose-admin-token-change-me', /change/],
    ['the Kubernetes placeholder', 'REPLACE_ME-operator-token-0000000000', /replaceme/],
    ['a short token', 'a-long-enough-token', /at least 32/],
  ])(
    'when production gets %s, then it refuses to start naming the reason without echoing the token',
    (_what, token, reason) => {
      let message = '';
      try {
        loadConfig(schema, { NODE_ENV: 'production', ADMIN_TOKEN: token });
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toMatch(/ADMIN_TOKEN/);
      expect(message).toMatch(reason);
      expect(message).toMatch(/openssl rand -hex 32/);
      expect(message).not.toContain(token);
    },
  );

  test('when development gets a short made-up token, then it is accepted as before', () => {
    expect(loadConfig(schema, { ADMIN_TOKEN: 'a-long-enough-token' }).ADMIN_TOKEN).toBe('a-long-enough-token');
  });

  test('when a settings table is declared, then the config type follows each schema, narrowed and optional where marked', () => {
    const table = {
      ...baseConfigSchema,
      PORT: Joi.number().port().default(3000),
      MODE: setting<'a' | 'b'>(Joi.string().valid('a', 'b').default('a')),
      SECRET: optionalSetting(Joi.string()),
    };
    type Config = ConfigOf<typeof table>;
    // compile-time: a wrong type or a required SECRET would not typecheck
    const expected: Config = {
      NODE_ENV: 'test',
      MONGO_URL: 'mongodb://h',
      NATS_URL: 'nats://h',
      LOG_LEVEL: 'info',
      SHUTDOWN_TIMEOUT_MS: 1,
      PORT: 1,
      MODE: 'b',
    };
    const mode: 'a' | 'b' = loadConfig(configSchema(table), { MODE: 'b' }).MODE;
    expect(mode).toBe(expected.MODE);
    expect(loadConfig(configSchema(table), {})).toMatchObject({ PORT: 3000, MODE: 'a', NODE_ENV: 'development' });
    expect(loadConfig(configSchema(table), {}).SECRET).toBeUndefined();
    expect(() => loadConfig(configSchema(table), { MODE: 'c' })).toThrow(/MODE/);
  });
});
