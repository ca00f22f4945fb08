import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'winston';

export type { NatsConnection };

export interface NatsOptions {
  url: string;
  name: string;
  logger: Logger;
}

/**
 * Connects and then reconnects forever (the client's default gives up after 10 attempts,
 * which would silently stop a service after a broker restart of a minute).
 */
export async function connectNats(opts: NatsOptions): Promise<NatsConnection> {
  const nc = await connect({
    servers: opts.url.split(',').map((s) => s.trim()),
    name: opts.name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 1000,
    waitOnFirstConnect: false,
    timeout: 5000,
  });
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect' || s.type === 'reconnect' || s.type === 'error') {
        opts.logger.warn('nats connection status', { status: s.type });
      }
    }
  })();
  return nc;
}

/** Readiness: connected and the server answers a round trip. */
export async function pingNats(nc: NatsConnection): Promise<void> {
  if (nc.isClosed()) throw new Error('nats connection closed');
  await nc.rtt();
}
