import { loadManagementConfig } from './config';

const key = Buffer.alloc(32, 5).toString('base64');
// production refuses guessable operator tokens (platform operator-token.ts): a random one
const production = {
  NODE_ENV: 'production',
  ADMIN_TOKEN: '9b1c4e7a2f6d08e35a7c91b4d2e6f0a8c3b5d7e91f2a4c6e8b0d1f3a5c7e9b2d',
};

describe('management configuration', () => {
  test('when production runs without the token keys, then it refuses to start naming both', () => {
    expect(() => loadManagementConfig(production)).toThrow(/TOKEN_ENCRYPTION_KEYS[\s\S]*TOKEN_LOOKUP_KEY/);
  });

  test('when production has both token keys, then it starts', () => {
    const config = loadManagementConfig({ ...production, TOKEN_ENCRYPTION_KEYS: `k1:${key}`, TOKEN_LOOKUP_KEY: key });
    expect(config.TOKEN_ENCRYPTION_KEYS).toBe(`k1:${key}`);
  });

  test('when development or tests leave the keys unset, then the configuration is valid (the keys are derived at start, with a warning)', () => {
    expect(loadManagementConfig({}).TOKEN_ENCRYPTION_KEYS).toBeUndefined();
    expect(loadManagementConfig({ NODE_ENV: 'test' }).TOKEN_LOOKUP_KEY).toBeUndefined();
  });

  test('when a token key is malformed, then the message names the variable and the problem but not the value', () => {
    const short = Buffer.alloc(16, 1).toString('base64');
    expect(() => loadManagementConfig({ TOKEN_ENCRYPTION_KEYS: `k1:${short}` })).toThrow(
      /TOKEN_ENCRYPTION_KEYS.*32 bytes/,
    );
    expect(() => loadManagementConfig({ TOKEN_ENCRYPTION_KEYS: `k1:${short}` })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining(short) }),
    );
    expect(() => loadManagementConfig({ TOKEN_LOOKUP_KEY_PREVIOUS: 'x' })).toThrow(/TOKEN_LOOKUP_KEY_PREVIOUS/);
  });

  test('when title fetch ports are given as a comma list, then they are parsed; the default is 80 and 443', () => {
    expect(loadManagementConfig({ TITLE_FETCH_ALLOWED_PORTS: '80, 8080' }).TITLE_FETCH_ALLOWED_PORTS).toEqual([
      80, 8080,
    ]);
    expect(loadManagementConfig({}).TITLE_FETCH_ALLOWED_PORTS).toEqual([80, 443]);
    expect(() => loadManagementConfig({ TITLE_FETCH_ALLOWED_PORTS: '80,http' })).toThrow(/TITLE_FETCH_ALLOWED_PORTS/);
  });

  test('when OWNER_REGISTRY_REPLICAS is not 1, 3 or 5, then the service refuses to start', () => {
    expect(loadManagementConfig({ OWNER_REGISTRY_REPLICAS: '3' }).OWNER_REGISTRY_REPLICAS).toBe(3);
    expect(() => loadManagementConfig({ OWNER_REGISTRY_REPLICAS: '2' })).toThrow(/OWNER_REGISTRY_REPLICAS/);
  });

  test('when the test-only loopback setting is used in production, then the service refuses to start', () => {
    expect(() =>
      loadManagementConfig({
        ...production,
        TOKEN_ENCRYPTION_KEYS: `k1:${key}`,
        TOKEN_LOOKUP_KEY: key,
        TITLE_FETCH_ALLOW_LOOPBACK: 'true',
      }),
    ).toThrow(/test-only/);
  });
});
