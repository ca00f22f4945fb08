import { clientErrorAnswer } from './client-errors';

const err = (code: string, raw?: string) =>
  Object.assign(new Error('Parse Error'), { code, rawPacket: raw === undefined ? undefined : Buffer.from(raw) });
const MAX = 16384;

describe('clientErrorAnswer', () => {
  test.each([
    [
      'an over-long URL (no line end received)',
      err('HPE_HEADER_OVERFLOW', `GET /v1/v.gif?x=${'a'.repeat(17000)}`),
      414,
      'uri_too_long',
    ],
    [
      'an over-long URL with short headers',
      err('HPE_HEADER_OVERFLOW', `GET /v1/v.gif?x=${'a'.repeat(12000)} HTTP/1.1\r\nx-a: ${'b'.repeat(5000)}`),
      414,
      'uri_too_long',
    ],
    [
      'over-long headers',
      err('HPE_HEADER_OVERFLOW', `GET /x HTTP/1.1\r\nx-big: ${'b'.repeat(17000)}`),
      431,
      'request_header_fields_too_large',
    ],
    ['an overflow without the raw bytes', err('HPE_HEADER_OVERFLOW'), 431, 'request_header_fields_too_large'],
    ['a slow request', err('ERR_HTTP_REQUEST_TIMEOUT'), 408, 'request_timeout'],
    ['a malformed request line', err('HPE_INVALID_METHOD', 'GE\u0000T / HTTP/1.1\r\n'), 400, 'validation_error'],
    ['an invalid header token', err('HPE_INVALID_HEADER_TOKEN'), 400, 'validation_error'],
  ])('when the parser refuses %s, then the answer is %d %s with a message', (_what, e, status, code) => {
    const answer = clientErrorAnswer(e, MAX);
    expect(answer).toEqual({ status, code, message: expect.stringMatching(/\S/) });
  });

  test('when the URL is too long, then the message states the limit', () => {
    expect(clientErrorAnswer(err('HPE_HEADER_OVERFLOW', 'GET /'.padEnd(20000, 'a')), MAX).message).toMatch(/16 KB/);
  });
});
