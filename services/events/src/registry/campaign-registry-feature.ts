import { prom, type Logger, type NatsConnection, type ReadinessCheck, type Registry } from '@cm/platform';
import type { EventsConfig } from '../config';
import { CampaignRegistryWatcher, type CampaignLookup } from './campaign-registry-watcher';

export interface CampaignRegistryFeature {
  /** The campaigns of the registry, for the reporting role's campaign filter and scorecard. */
  campaigns: CampaignLookup;
  /** Readiness: not ready until the bucket's replay is complete. */
  check: ReadinessCheck;
  /** Opens the bucket and replays it; resolves once ready. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** The reporting role's mirror of the campaign registry (management writes it), with its readiness check and metrics. */
export function createCampaignRegistryFeature(deps: {
  nc: NatsConnection;
  config: Pick<EventsConfig, 'CAMPAIGN_REGISTRY_BUCKET' | 'CAMPAIGN_REGISTRY_REPLICAS'>;
  logger: Logger;
  metrics: Registry;
}): CampaignRegistryFeature {
  const { config } = deps;
  const watcher = new CampaignRegistryWatcher(
    deps.nc,
    config.CAMPAIGN_REGISTRY_BUCKET,
    config.CAMPAIGN_REGISTRY_REPLICAS,
    deps.logger,
  );
  new prom.Gauge({
    name: 'events_campaign_registry_campaigns',
    help: 'Live campaigns known to this reporting process (from the campaign registry bucket)',
    registers: [deps.metrics],
    collect() {
      this.set(watcher.size);
    },
  });
  new prom.Gauge({
    name: 'events_campaign_registry_ready',
    help: '1 once the campaign registry replay finished',
    registers: [deps.metrics],
    collect() {
      this.set(watcher.isReady() ? 1 : 0);
    },
  });
  return {
    campaigns: watcher,
    check: async () => {
      if (!watcher.isReady()) throw new Error('campaign registry not replayed yet');
    },
    start: () => watcher.start(),
    stop: () => watcher.stop(),
  };
}
