import type { Logger } from 'winston';
import { StartAbortedError, describeError } from './retry-until';

export interface RunningService {
  /** Graceful stop: stop accepting, drain, close connections. */
  stop(): Promise<void>;
}

export interface RunServiceOptions<S extends RunningService> {
  logger: Logger;
  /** Starts the service; `signal` aborts when SIGTERM/SIGINT arrives during start-up. */
  start(signal: AbortSignal): Promise<S>;
  /** After the signal, the process exits 1 at the latest after this long. */
  deadlineMs: number;
}

/**
 * The life of a service process: start (retrying its dependencies for as long as it takes),
 * then wait for SIGTERM/SIGINT and stop gracefully. A signal during start-up cancels the waits
 * and exits 0; a start-up failure that cannot be retried logs what failed and exits 1.
 */
export function runService<S extends RunningService>(opts: RunServiceOptions<S>): void {
  const { logger } = opts;
  const aborter = new AbortController();
  let stopping = false;
  const starting = opts.start(aborter.signal);

  starting.catch((err: unknown) => {
    if (stopping) return;
    logger.error('start-up failed', { error: describeError(err) });
    process.exit(1);
  });

  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    aborter.abort();
    const deadline = setTimeout(() => {
      logger.error('shutdown deadline passed, exiting');
      process.exit(1);
    }, opts.deadlineMs);
    deadline.unref();
    let system: S;
    try {
      system = await starting;
    } catch (err) {
      if (err instanceof StartAbortedError) {
        logger.info('start-up cancelled', { waiting_for: err.dependency });
        process.exit(0);
      }
      logger.error('start-up failed', { error: describeError(err) });
      process.exit(1);
    }
    try {
      await system.stop();
      logger.info('shutdown complete');
      process.exit(0);
    } catch (err) {
      logger.error('shutdown failed', { error: describeError(err) });
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}
