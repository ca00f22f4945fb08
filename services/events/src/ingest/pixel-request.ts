import type http from 'node:http';
import { PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from '@cm/platform';

/** The parameters of one pixel request; a name given twice yields an array (which validation refuses). */
export type RawParams = Map<string, string | string[]>;

/**
 * Query string or beacon body into parameters. Never throws: URLSearchParams keeps malformed
 * escapes as text. Parameters with an empty name (`?=x`, `&&`) are ignored.
 */
export function parseParams(text: string, into: RawParams = new Map()): RawParams {
  for (const [key, value] of new URLSearchParams(text)) {
    if (key === '') continue;
    const existing = into.get(key);
    into.set(key, existing === undefined ? value : ([] as string[]).concat(existing, value));
  }
  return into;
}

/** Form-encoded beacons carry a few KB at most; anything bigger is refused before it is buffered. */
const BEACON_BODY_MAX_BYTES = 64 * 1024;

// navigator.sendBeacon(url, URLSearchParams) sends a form body, sendBeacon(url, 'a=b') sends
// text/plain: both are CORS-safelisted (no preflight) and both are parsed as a query string
const ACCEPTED = /^\s*(application\/x-www-form-urlencoded|text\/plain)\s*(;|$)/i;

/** Reads a POST body as query-string text: "" when there is none. Rejects with a typed error. */
export function readBeaconBody(req: http.IncomingMessage, maxBytes = BEACON_BODY_MAX_BYTES): Promise<string> {
  const declared = Number(req.headers['content-length'] ?? 0);
  const chunked = req.headers['transfer-encoding'] !== undefined;
  if (declared === 0 && !chunked) {
    req.resume();
    return Promise.resolve('');
  }
  const type = req.headers['content-type'];
  if (!type || !ACCEPTED.test(type)) {
    req.resume();
    return Promise.reject(
      new UnsupportedMediaTypeError('send the beacon as application/x-www-form-urlencoded or text/plain'),
    );
  }
  if (declared > maxBytes) {
    req.resume();
    return Promise.reject(new PayloadTooLargeError(`beacon bodies are limited to ${maxBytes} bytes`));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        req.removeAllListeners('data');
        req.resume();
        reject(new PayloadTooLargeError(`beacon bodies are limited to ${maxBytes} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => reject(new ValidationError('incomplete request body')));
  });
}
