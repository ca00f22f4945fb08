import type { Response } from 'express';
import { sendJson } from './json-answer';

/** What sendJson gave a response: its headers and the body's bytes. */
function answered(answer: unknown): { headers: Record<string, unknown>; body: Buffer } {
  const headers: Record<string, unknown> = {};
  let body: Buffer = Buffer.alloc(0);
  const res = {
    setHeader: (name: string, value: unknown) => (headers[name] = value),
    end: (chunk: Buffer) => (body = chunk),
  } as unknown as Response;
  sendJson(res, answer);
  return { headers, body };
}

describe('sendJson', () => {
  test.each([
    ['ASCII', [{ name: 'view', url: 'https://example.com/a?utm_source=x', value: 3, engaged_ms_p90: 9.5 }]],
    ['Latin-1 letters', [{ name: 'view', title: 'Café crème, naïve façade', value: 1 }]],
    ['other scripts and emoji', [{ name: 'view', title: 'Привет 世界 🎉', value: 2 }]],
    ['escapes and lone surrogates', [{ name: 'a\u0000b\n"\\', title: '\ud800 end', value: 0 }]],
  ])(
    'when the answer holds %s, then its body is the JSON in UTF-8 and Content-Length is its bytes',
    (_kind, answer) => {
      const { headers, body } = answered(answer);
      expect(headers['Content-Type']).toBe('application/json; charset=utf-8');
      expect(headers['Content-Length']).toBe(body.length);
      expect(body.equals(Buffer.from(JSON.stringify(answer), 'utf8'))).toBe(true);
      expect(JSON.parse(body.toString('utf8'))).toEqual(answer);
    },
  );
});
