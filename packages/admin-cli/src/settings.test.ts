import { resolveSettings, serviceUrl } from './settings';
import { UsageError } from './usage-error';

const files: Record<string, string> = {
  '/run/secrets/admin': 'file-token-0123\n',
  '/empty': '\n',
  '/spaced': 'two words\n',
};
const readFile = async (path: string) => {
  if (path in files) return files[path]!;
  throw Object.assign(new Error('no such file'), { code: 'ENOENT' });
};

describe('settings', () => {
  test('when nothing but ADMIN_TOKEN is set, then the local default addresses are used', async () => {
    expect(await resolveSettings({}, { ADMIN_TOKEN: 'env-token' }, readFile)).toEqual({
      urls: { management: 'http://127.0.0.1:3000', events: 'http://127.0.0.1:3001' },
      adminToken: 'env-token',
      json: false,
    });
  });

  test('when flags and environment both give addresses, then the flags win and trailing slashes are dropped', async () => {
    const s = await resolveSettings(
      { 'management-url': 'https://m.example/', json: true },
      { MANAGEMENT_URL: 'http://env-m', EVENTS_URL: 'http://env-e:9000/prefix/', ADMIN_TOKEN: 't' },
      readFile,
    );
    expect(s.urls).toEqual({ management: 'https://m.example', events: 'http://env-e:9000/prefix' });
    expect(s.json).toBe(true);
  });

  test('when a token file is given, then it wins over ADMIN_TOKEN and its newline is dropped; ADMIN_TOKEN_FILE is the last resort', async () => {
    expect(
      (await resolveSettings({ 'admin-token-file': '/run/secrets/admin' }, { ADMIN_TOKEN: 'env' }, readFile))
        .adminToken,
    ).toBe('file-token-0123');
    expect((await resolveSettings({}, { ADMIN_TOKEN_FILE: '/run/secrets/admin' }, readFile)).adminToken).toBe(
      'file-token-0123',
    );
  });

  test.each([
    [{}, {}, /no operator token/],
    [{}, { ADMIN_TOKEN: '   ' }, /no operator token/],
    [{ 'admin-token-file': '/missing' }, {}, /cannot read .*\/missing: ENOENT/],
    [{ 'admin-token-file': '/empty' }, {}, /is empty/],
    [{ 'admin-token-file': '/spaced' }, {}, /contains spaces/],
    [{ 'events-url': 'not a url' }, { ADMIN_TOKEN: 't' }, /events URL is not a URL/],
    [{ 'management-url': 'ftp://m' }, { ADMIN_TOKEN: 't' }, /http or https/],
    [{ 'events-url': 'http://e/?x=1' }, { ADMIN_TOKEN: 't' }, /query/],
  ])('when options are %j and env %j, then it is a usage error saying %s', async (values, env, message) => {
    const err = await resolveSettings(values, env, readFile).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(message);
  });

  test('when the token file holds a bad token, then the error never repeats the token', async () => {
    const err = (await resolveSettings({ 'admin-token-file': '/spaced' }, {}, readFile).catch(
      (e: unknown) => e,
    )) as Error;
    expect(err.message).not.toContain('two words');
  });

  test('when a URL has a path, then the path is kept for services behind a prefix', () => {
    expect(serviceUrl('http://proxy.example/events/', 'x')).toBe('http://proxy.example/events');
  });
});
