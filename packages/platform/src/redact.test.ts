import { isSecretName, redact, redactString } from './redact';
import { redactFormat } from './logger';

const SECRET = 's3cr3t-VALUE_42';

describe('redactString', () => {
  test.each([
    ['the plain parameter', '/api/v1/events/?api_key=S'],
    ['a percent-encoded underscore', '/api/v1/events/?api%5Fkey=S'],
    ['a lower-case percent escape', '/api/v1/events/?api%5fkey=S'],
    ['a doubly encoded underscore', '/api/v1/events/?api%255Fkey=S'],
    ['every letter encoded', '/api/v1/events/?%61%70%69%5F%6B%65%79=S'],
    ['upper case', '/api/v1/events/?API_KEY=S'],
    ['mixed case and encoding', '/api/v1/events/?Api%5FKeY=S'],
    ['a dash', '/x?api-key=S'],
    ['camel case', '/x?apiKey=S'],
    ['array brackets', '/x?api_key[]=S'],
    ['encoded brackets', '/x?api_key%5B%5D=S'],
    ['after another parameter', '/x?a=1&api_key=S&b=2'],
    ['a semicolon separator', '/x?a=1;api_key=S'],
    ['an absolute URL', 'https://events.example.com/api/v1/events/?api_key=S#frag'],
    ['api_token', '/x?api_token=S'],
    ['an encoded api_token', '/x?api%5Ftoken=S'],
    ['token', '/x?token=S'],
    ['admin_token', '/x?admin_token=S'],
    ['access_token', '/x?access_token=S'],
    ['password', '/x?password=S'],
    ['an encoded password', '/x?pass%77ord=S'],
    ['new_password', 'new_password=S&x=1'],
    ['a form body', 'email=a%40b.example&password=S'],
    ['authorization', '/x?authorization=S'],
    ['a JSON field', '{"email":"a@b.example","password":"S"}'],
    ['a JSON field with spaces', '{ "api_key" : "S" }'],
    ['a header line', 'Authorization: Bearer S'],
    ['a bare bearer token in text', 'sent Bearer S upstream'],
    ['a basic credential', 'authorization=Basic S'],
    ['a text key: value pair', 'admin_token: S'],
    ['a MongoDB URL password', 'mongodb://app:S@mongo-0:27017,mongo-1:27017/?replicaSet=rs0'],
    ['a NATS URL password', 'connecting to nats://svc:S@nats-0:4222'],
  ])('when a string holds a secret as %s, then its value is masked', (_what, template) => {
    const out = redactString(template.replace(/\bS\b/, SECRET));
    expect(out).not.toContain(SECRET);
    expect(out).toContain('[redacted]');
  });

  test.each([
    [
      'an ordinary query',
      '/v1/v.gif?owner_id=17&name=click&content_id=a-1',
      '/v1/v.gif?owner_id=17&name=click&content_id=a-1',
    ],
    ['names that only contain a secret word', '/x?tokens_total=3&keyword=api', '/x?tokens_total=3&keyword=api'],
    ['a message without pairs', 'events listening', 'events listening'],
    ['an empty string', '', ''],
  ])('when a string holds %s, then it passes unchanged', (_what, input, expected) => {
    expect(redactString(input)).toBe(expected);
  });

  test('when a URL carries user info, then only the password is masked', () => {
    expect(redactString('mongodb://app:pw@h:27017/db')).toBe('mongodb://app:[redacted]@h:27017/db');
  });

  test('when a secret parameter is masked, then the rest of the URL stays readable', () => {
    expect(redactString('/api/v1/events/?api%5Fkey=abc&x=1')).toBe('/api/v1/events/?api%5Fkey=[redacted]&x=1');
  });
});

describe('isSecretName', () => {
  test.each([
    'api_key',
    'API-KEY',
    'api%5Fkey',
    'X-Api-Key',
    'apiToken',
    'Authorization',
    'Cookie',
    'set-cookie',
    'client_secret',
    'ADMIN_TOKEN',
    'password',
  ])('when the name is %s, then it is a secret', (name) => {
    expect(isSecretName(name)).toBe(true);
  });

  test.each(['owner_id', 'name', 'content_id', 'url', 'keys', 'tokens', ''])(
    'when the name is "%s", then it is not',
    (name) => {
      expect(isSecretName(name)).toBe(false);
    },
  );
});

describe('redact', () => {
  test('when an object holds credentials under any spelling, then their values are masked at any depth', () => {
    const out = redact({
      a: { 'API-Key': 'x', api_token: 'y', nested: [{ Password: 'z' }] },
      headers: { authorization: 'Bearer q' },
      keep: 'me',
    });
    expect(out).toEqual({
      a: { 'API-Key': '[redacted]', api_token: '[redacted]', nested: [{ Password: '[redacted]' }] },
      headers: { authorization: '[redacted]' },
      keep: 'me',
    });
  });

  test('when a log entry carries a secret field and a URL with an encoded key, then the format masks both', () => {
    const info = redactFormat().transform({
      level: 'http',
      message: 'request',
      path: `/api/v1/events/?api%5Fkey=${SECRET}`,
      api_key: SECRET,
    }) as Record<string, unknown>;
    expect(JSON.stringify(info)).not.toContain(SECRET);
    expect(info.path).toBe('/api/v1/events/?api%5Fkey=[redacted]');
  });
});
