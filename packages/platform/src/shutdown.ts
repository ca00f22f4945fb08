import type { Logger } from 'winston';
import { runService } from './service-runner';

export type ShutdownStep = () => Promise<void>;

/**
 * Runs the steps in order on SIGTERM/SIGINT (stop accepting, drain, close connections) and exits 0,
 * or 1 when a step fails or the deadline passes. For a process that is already started; a
 * service that still has to connect uses runService, which also handles a signal during start-up.
 */
export function onShutdownSignal(logger: Logger, steps: ShutdownStep[], deadlineMs: number): void {
  runService({
    logger,
    deadlineMs,
    start: async () => ({
      async stop() {
        for (const step of steps) await step();
      },
    }),
  });
}
