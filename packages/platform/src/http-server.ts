import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Starts listening and resolves with the bound port (port 0 picks a free one, used by tests). */
export function listen(server: http.Server, port: number, host?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** One pass of the event loop's I/O phase, with margin. */
const SOCKET_READ_GRACE_MS = 25;

/**
 * Stops accepting, lets in-flight requests finish, and closes keep-alive sockets as soon as they
 * go idle (server.close() alone only closes the ones idle at the moment it is called).
 */
export async function closeServer(server: http.Server, timeoutMs: number): Promise<void> {
  // Requests whose bytes already wait in the socket (sent just before the signal, while the
  // process was busy, e.g. still starting) are not parsed yet, so their connections count as
  // idle and close() would reset them: let the event loop read them first.
  await new Promise((r) => setTimeout(r, SOCKET_READ_GRACE_MS));
  return new Promise((resolve) => {
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    const force = setTimeout(() => {
      server.closeAllConnections();
    }, timeoutMs);
    force.unref();
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
}
