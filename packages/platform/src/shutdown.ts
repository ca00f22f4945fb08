import type { Logger } from 'winston';

export type ShutdownStep = () => Promise<void>;

/**
 * Runs the steps in order on SIGTERM/SIGINT (stop accepting, drain, close connections) and exits 0,
 * or 1 when a step fails or the deadline passes.
 */
export function onShutdownSignal(logger: Logger, steps: ShutdownStep[], deadlineMs: number): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    const deadline = setTimeout(() => {
      logger.error('shutdown deadline passed, exiting');
      process.exit(1);
    }, deadlineMs);
    deadline.unref();
    try {
      for (const step of steps) await step();
      logger.info('shutdown complete');
      process.exit(0);
    } catch (err) {
      logger.error('shutdown failed', { error: String(err) });
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}
