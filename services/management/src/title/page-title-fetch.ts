import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { addressLiteralOf, isAllowedAddress, portOf, type AddressPolicy } from './address-policy';
import { RefusedAddressError, guardedLookup } from './guarded-lookup';
import { TitleExtractor } from './title-extractor';

interface TitleFetchPolicy extends AddressPolicy {
  /** TCP ports a fetch (and every redirect hop) may connect to: 80 and 443 unless configured. */
  allowedPorts: readonly number[];
}

export interface TitleFetchLimits extends TitleFetchPolicy {
  /** Whole fetch, all redirects included. */
  timeoutMs: number;
  /** Most body bytes read from the final page; the title must be within them. */
  maxBytes: number;
  maxRedirects: number;
}

class TitleFetchError extends Error {}

const HTML_TYPES = /^(text\/html|application\/xhtml\+xml)\b/i;

/**
 * GETs the page (following at most `maxRedirects` redirects, each hop's port and address checked again) and returns
 * its title, or "" when the page is not HTML or has none. Every connection goes through the
 * guarded lookup, and address literals are checked here because Node skips lookup for them.
 */
export async function fetchPageTitle(url: string, limits: TitleFetchLimits, stop?: AbortSignal): Promise<string> {
  // Not AbortSignal.timeout: inside AbortSignal.any only a weak reference keeps it, and after a
  // garbage collection it never fired (Node 20; nodejs/node#57736), so a page that never ends held
  // its fetch slot for good. This timer holds its controller until it fires or is cleared.
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), limits.timeoutMs).unref();
  const signal = stop ? AbortSignal.any([deadline.signal, stop]) : deadline.signal;
  try {
    return await fetchWithin(new URL(url), limits, signal);
  } finally {
    clearTimeout(timer);
  }
}

async function fetchWithin(first: URL, limits: TitleFetchLimits, signal: AbortSignal): Promise<string> {
  const lookup = guardedLookup(limits);
  let target = first;
  for (let hop = 0; ; hop++) {
    const res = await get(target, lookup, signal, limits);
    const status = res.statusCode ?? 0;
    if (status >= 300 && status < 400 && res.headers.location) {
      res.destroy();
      if (hop >= limits.maxRedirects) throw new TitleFetchError(`more than ${limits.maxRedirects} redirects`);
      target = new URL(res.headers.location, target);
      continue;
    }
    if (status < 200 || status >= 300) {
      res.destroy();
      throw new TitleFetchError(`status ${status}`);
    }
    if (!HTML_TYPES.test(res.headers['content-type'] ?? '')) {
      res.destroy();
      return '';
    }
    return readTitle(res, limits.maxBytes, signal);
  }
}

function get(
  target: URL,
  lookup: ReturnType<typeof guardedLookup>,
  signal: AbortSignal,
  policy: TitleFetchPolicy,
): Promise<IncomingMessage> {
  if (target.protocol !== 'http:' && target.protocol !== 'https:')
    return Promise.reject(new TitleFetchError(`scheme ${target.protocol} is not fetched`));
  if (!policy.allowedPorts.includes(portOf(target)))
    return Promise.reject(new TitleFetchError(`port ${portOf(target)} is not fetched`));
  const literal = addressLiteralOf(target.hostname);
  if (literal && !isAllowedAddress(literal, policy))
    return Promise.reject(new RefusedAddressError(`${literal} is not fetched`));
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.get(target, {
      lookup,
      signal,
      agent: false, // a fresh socket per fetch: nothing pooled outlives the checks made for it
      headers: { accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1', 'user-agent': 'cm-title-fetcher/1.0' },
    });
    req.once('response', resolve);
    req.once('error', (err) => reject(signal.aborted ? new TitleFetchError('timed out or stopped') : err));
  });
}

function charsetOf(contentType: string | undefined): string {
  const label = /charset\s*=\s*"?([\w-]+)/i.exec(contentType ?? '')?.[1] ?? 'utf-8';
  try {
    new TextDecoder(label);
    return label;
  } catch {
    return 'utf-8';
  }
}

/** Reads until the title is known, the head ends, the body ends or `maxBytes` were read, whichever comes first. */
function readTitle(res: IncomingMessage, maxBytes: number, signal: AbortSignal): Promise<string> {
  const decoder = new TextDecoder(charsetOf(res.headers['content-type']));
  const extractor = new TitleExtractor();
  let read = 0;
  let settled = false;
  return new Promise((resolve, reject) => {
    const settle = (err?: Error) => {
      if (settled) return;
      settled = true;
      res.destroy();
      if (err) reject(err);
      else resolve(extractor.result());
    };
    res.on('data', (chunk: Buffer) => {
      if (settled) return;
      const room = maxBytes - read;
      read += chunk.length;
      extractor.write(decoder.decode(chunk.subarray(0, Math.max(room, 0)), { stream: true }));
      if (extractor.done || read >= maxBytes) settle();
    });
    res.once('end', () => settle());
    res.once('error', (err) => settle(signal.aborted ? new TitleFetchError('timed out or stopped') : err));
    // A body cut short still may have carried the title; an abort has already settled above.
    res.once('close', () => settle(signal.aborted ? new TitleFetchError('timed out or stopped') : undefined));
  });
}
