import Joi from 'joi';
import { ConfigError, baseConfigSchema, loadConfig } from './config';

const schema = Joi.object({ ...baseConfigSchema, PORT: Joi.number().port().default(3000) });

describe('loadConfig', () => {
  test('when the environment is empty, then defaults apply', () => {
    const c = loadConfig(schema, {});
    expect(c).toMatchObject({ PORT: 3000, LOG_LEVEL: 'info', NODE_ENV: 'development' });
  });

  test('when values are wrong, then it fails fast listing every problem', () => {
    expect(() => loadConfig(schema, { PORT: 'x', LOG_LEVEL: 'loud' })).toThrow(ConfigError);
    expect(() => loadConfig(schema, { PORT: 'x', LOG_LEVEL: 'loud' })).toThrow(/PORT[\s\S]*LOG_LEVEL|LOG_LEVEL[\s\S]*PORT/);
  });

  test('when production runs without ADMIN_TOKEN, then it refuses to start', () => {
    expect(() => loadConfig(schema, { NODE_ENV: 'production' })).toThrow(/ADMIN_TOKEN/);
    expect(loadConfig(schema, { NODE_ENV: 'production', ADMIN_TOKEN: 'a-long-enough-token' }).ADMIN_TOKEN).toBe('a-long-enough-token');
  });
});
