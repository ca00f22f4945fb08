import { createLogger, runService } from '@cm/platform';
import { startEvents } from './composition-root';
import { loadEventsConfig } from './config';

function main(): void {
  // a configuration error is not transient: it ends the process at once with every problem listed
  const config = loadEventsConfig(process.env);
  const logger = createLogger({ service: 'events', level: config.LOG_LEVEL });
  if (!config.ADMIN_TOKEN && config.EVENTS_ROLES.includes('reporting'))
    logger.warn('ADMIN_TOKEN is not set: API key endpoints answer 401');
  runService({
    logger,
    start: (signal) => startEvents(config, logger, config.EVENTS_PORT, signal),
    deadlineMs: config.SHUTDOWN_TIMEOUT_MS + 5000,
  });
}

try {
  main();
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
}
