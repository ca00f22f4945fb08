import type http from 'node:http';
import { addressKey } from '@cm/platform';

/**
 * The address every per-client limit of the events service is derived from (pixel flood limits,
 * failed API key lookups), through one setting, PIXEL_TRUSTED_PROXY_HOPS. With no trusted proxy
 * in front (hops 0) it is the socket's peer. Behind `hops` trusted proxies that each append the address they saw to
 * X-Forwarded-For (nginx `$proxy_add_x_forwarded_for`, ingress-nginx), it is the entry `hops`
 * from the right: whatever a client wrote further left is its own claim and is ignored, so a
 * forged header cannot pick another client's bucket.
 */
export function clientAddress(req: http.IncomingMessage, trustedHops: number): string {
  const peer = req.socket.remoteAddress ?? '';
  if (trustedHops === 0) return peer;
  const header = req.headers['x-forwarded-for'];
  if (typeof header !== 'string' || header === '') return peer;
  const entries = header.split(',');
  const entry = entries[Math.max(0, entries.length - trustedHops)]!.trim();
  return entry === '' ? peer : entry.slice(0, 64);
}

/**
 * The bucket key of the client behind `req`: its IPv4 address or IPv6 /64 (addressKey). Kept in
 * memory only, never logged: it is as identifying as the address itself.
 */
export function clientKey(req: http.IncomingMessage, trustedHops: number): string {
  return addressKey(clientAddress(req, trustedHops));
}
