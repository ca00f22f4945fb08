import { createLogger, onShutdownSignal } from '@cm/platform';
import { startEvents } from './composition-root';
import { loadEventsConfig } from './config';

async function main(): Promise<void> {
  const config = loadEventsConfig(process.env);
  const logger = createLogger({ service: 'events', level: config.LOG_LEVEL });
  if (!config.ADMIN_TOKEN && config.EVENTS_ROLES.includes('reporting')) logger.warn('ADMIN_TOKEN is not set: API key endpoints answer 401');
  const system = await startEvents(config, logger);
  onShutdownSignal(logger, [() => system.stop()], config.SHUTDOWN_TIMEOUT_MS + 5000);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
