import { createLogger, onShutdownSignal } from '@cm/platform';
import { startManagement } from './composition-root';
import { loadManagementConfig } from './config';

async function main(): Promise<void> {
  const config = loadManagementConfig(process.env);
  const logger = createLogger({ service: 'management', level: config.LOG_LEVEL });
  if (!config.ADMIN_TOKEN) logger.warn('ADMIN_TOKEN is not set: operator endpoints answer 401');
  const system = await startManagement(config, logger);
  onShutdownSignal(logger, [() => system.stop()], config.SHUTDOWN_TIMEOUT_MS + 5000);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
