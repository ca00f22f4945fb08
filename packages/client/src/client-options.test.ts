import { AdminClient } from './admin-client';
import { resolveRetry, resolveTransportConfig, segment } from './client-options';
import { EventsClient } from './events-client';
import { ManagementClient } from './management-client';
import { DEFAULT_RETRY } from './retry-policy';

describe('client options', () => {
  test('when the base URL has a trailing slash or a path prefix, then paths are appended cleanly', () => {
    expect(resolveTransportConfig('http://127.0.0.1:3000/', {}, 'baseUrl').baseUrl).toBe('http://127.0.0.1:3000');
    expect(resolveTransportConfig('https://gw.example/campaigns//', {}, 'baseUrl').baseUrl).toBe(
      'https://gw.example/campaigns',
    );
  });

  test('when the base URL is not a plain http(s) URL, then construction fails without echoing it', () => {
    for (const bad of [
      'localhost:3000',
      'ftp://x.example',
      'https://x.example/?token=secret',
      'https://me:secret@x.example',
    ]) {
      expect(() => new ManagementClient({ baseUrl: bad, apiToken: 't' })).toThrow(TypeError);
      try {
        new ManagementClient({ baseUrl: bad, apiToken: 't' });
      } catch (err) {
        expect((err as Error).message).not.toContain('secret');
      }
    }
  });

  test('when a credential is missing, then construction fails at once', () => {
    expect(() => new ManagementClient({ baseUrl: 'http://x.example', apiToken: '' })).toThrow(/apiToken/);
    expect(() => new AdminClient({ eventsUrl: 'http://x.example', adminToken: '' })).toThrow(/adminToken/);
    expect(() => new AdminClient({ adminToken: 't' })).toThrow(/managementUrl, eventsUrl/);
  });

  test('when a client lacks the address or key a call needs, then that call rejects with a TypeError', async () => {
    await expect(
      new AdminClient({ eventsUrl: 'http://x.example', adminToken: 't' }).createAccount({
        email: 'a@b.example',
        password: 'pw123456',
      }),
    ).rejects.toThrow(/managementUrl/);
    await expect(new AdminClient({ managementUrl: 'http://x.example', adminToken: 't' }).listApiKeys()).rejects.toThrow(
      /eventsUrl/,
    );
    await expect(new EventsClient({ baseUrl: 'http://x.example' }).report({ owner_id: '1' })).rejects.toThrow(/apiKey/);
  });

  test('when retry or timeout settings are nonsense, then they are refused', () => {
    expect(() => resolveRetry(DEFAULT_RETRY, { maxAttempts: 0 })).toThrow(RangeError);
    expect(() => resolveRetry(DEFAULT_RETRY, { maxAttempts: 1.5 })).toThrow(RangeError);
    expect(() => resolveRetry(DEFAULT_RETRY, { baseDelayMs: -1 })).toThrow(RangeError);
    expect(() => resolveRetry(DEFAULT_RETRY, { maxTotalDelayMs: Number.NaN })).toThrow(RangeError);
    expect(resolveRetry(DEFAULT_RETRY, { maxAttempts: 1 })).toEqual({ ...DEFAULT_RETRY, maxAttempts: 1 });
    expect(() => new EventsClient({ baseUrl: 'http://x.example', timeoutMs: 0 })).toThrow(/timeoutMs/);
  });

  test('when a path segment is empty or holds path characters, then it is refused or encoded', () => {
    expect(() => segment('', 'campaignToken')).toThrow(/campaignToken/);
    expect(segment('../user', 'campaignToken')).toBe('..%2Fuser');
    expect(segment('a?b#c', 'urlToken')).toBe('a%3Fb%23c');
  });
});
