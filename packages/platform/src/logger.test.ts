import { redact } from './logger';

describe('redact', () => {
  test('when an object holds credentials, then their values are masked at any depth', () => {
    const out = redact({
      user: { password: 'p4ss', api_token: 't0k' },
      headers: { Authorization: 'Bearer x' },
      keep: 'me',
    });
    expect(out).toEqual({
      user: { password: '[redacted]', api_token: '[redacted]' },
      headers: { Authorization: '[redacted]' },
      keep: 'me',
    });
  });

  test('when a URL carries api_key or token parameters, then their values are masked', () => {
    expect(redact('/api/v1/events/?api_key=secret123&x=1')).toBe('/api/v1/events/?api_key=[redacted]&x=1');
    expect(redact('/x?a=1&token=abc')).toBe('/x?a=1&token=[redacted]');
  });

  test('when values are plain, then they pass unchanged', () => {
    expect(redact(['a', 1, null])).toEqual(['a', 1, null]);
  });
});
