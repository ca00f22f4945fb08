import { AdminApi } from './admin-api';
import { ApiError, NetworkError, formatError } from './api-error';

// a scripted fetch (no network): the real services are exercised in admin-cli.int.test.ts
function apiAnswering(respond: (url: string, init: RequestInit) => Response | Promise<Response>) {
  const calls: Array<{ url: string; init: RequestInit }> = [];
  const api = new AdminApi({
    urls: { management: 'http://m', events: 'http://e/prefix' },
    adminToken: 'op-token',
    timeoutMs: 1000,
    fetch: (async (url: string, init: RequestInit) => {
      calls.push({ url, init });
      return respond(url, init);
    }) as typeof fetch,
  });
  return { api, calls };
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('admin API calls', () => {
  test('when a call is made, then it goes to the service address with the bearer token and a JSON body', async () => {
    const { api, calls } = apiAnswering(() => json(201, { id: 'k' }));
    expect(await api.request('events', 'POST', '/admin/v1/api-keys', { owner_ids: ['1'] })).toEqual({ id: 'k' });
    expect(calls[0]!.url).toBe('http://e/prefix/admin/v1/api-keys');
    expect(calls[0]!.init.headers).toMatchObject({
      authorization: 'Bearer op-token',
      'content-type': 'application/json',
    });
    expect(calls[0]!.init.body).toBe('{"owner_ids":["1"]}');
  });

  test('when the service answers 204, then the call resolves without a value', async () => {
    const { api } = apiAnswering(() => new Response(null, { status: 204 }));
    expect(await api.request('events', 'DELETE', '/admin/v1/api-keys/x')).toBeUndefined();
  });

  test('when the service answers the error shape, then code, message and field details are kept', async () => {
    const body = {
      error: {
        code: 'validation_error',
        message: 'invalid account',
        details: [{ field: 'email', message: 'must be a valid email' }],
      },
    };
    const { api } = apiAnswering(() => json(400, body));
    const err = (await api
      .request('management', 'POST', '/admin/v1/accounts', {})
      .catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({
      status: 400,
      code: 'validation_error',
      message: 'invalid account',
      details: [{ field: 'email', message: 'must be a valid email' }],
    });
    expect(formatError(err)).toBe('error: 400 validation_error: invalid account\n  email: must be a valid email');
    expect(JSON.parse(JSON.stringify(err))).toEqual({ status: 400, ...body });
  });

  test('when a proxy answers with an HTML page, then it is an http_error with the status', async () => {
    const { api } = apiAnswering(
      () => new Response('<html>bad gateway</html>', { status: 502, statusText: 'Bad Gateway' }),
    );
    const err = (await api.request('events', 'GET', '/admin/v1/pipeline').catch((e: unknown) => e)) as ApiError;
    expect(err).toMatchObject({ status: 502, code: 'http_error', message: 'HTTP 502 Bad Gateway' });
  });

  test('when a 401 comes back, then the message hints at the token without showing it', async () => {
    const { api } = apiAnswering(() =>
      json(401, { error: { code: 'unauthorized', message: 'operator token required' } }),
    );
    const text = formatError(
      (await api.request('events', 'GET', '/admin/v1/api-keys').catch((e: unknown) => e)) as ApiError,
    );
    expect(text).toMatch(/401 unauthorized: operator token required\nhint: .*ADMIN_TOKEN/);
    expect(text).not.toContain('op-token');
  });

  test('when the connection fails or times out, then it is a NetworkError naming the service and address', async () => {
    const refused = apiAnswering(() => {
      throw new TypeError('fetch failed', {
        cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
      });
    });
    const err = (await refused.api
      .request('events', 'GET', '/admin/v1/pipeline')
      .catch((e: unknown) => e)) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.message).toBe('cannot reach the events service at http://e/prefix (ECONNREFUSED)');
    expect(JSON.parse(JSON.stringify(err))).toEqual({ error: { code: 'network_error', message: err.message } });

    const slow = apiAnswering(() => {
      throw new DOMException('The operation was aborted due to timeout', 'TimeoutError');
    });
    expect(((await slow.api.request('management', 'GET', '/x').catch((e: unknown) => e)) as Error).message).toBe(
      'the management service at http://m did not answer within 1 s',
    );
  });
});
