import { createLogger, runService } from '@cm/platform';
import { startManagement } from './composition-root';
import { loadManagementConfig } from './config';

function main(): void {
  // a configuration error is not transient: it ends the process at once with every problem listed
  const config = loadManagementConfig(process.env);
  const logger = createLogger({ service: 'management', level: config.LOG_LEVEL });
  if (!config.ADMIN_TOKEN) logger.warn('ADMIN_TOKEN is not set: operator endpoints answer 401');
  runService({
    logger,
    start: (signal) => startManagement(config, logger, config.MANAGEMENT_PORT, signal),
    deadlineMs: config.SHUTDOWN_TIMEOUT_MS + 5000,
  });
}

try {
  main();
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
}
