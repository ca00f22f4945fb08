import { campaignRegistryBucketOptions, type CampaignRecord } from '@cm/contracts';
import type { Logger, NatsConnection } from '@cm/platform';
import { CampaignRegistryState } from './campaign-registry-state';
import { KvMirror } from './kv-mirror';

/** What a report asks about a campaign: an in-memory lookup, never a network round trip. */
export interface CampaignLookup {
  /** False until the bucket's replay is complete: an unknown campaign then means "not loaded yet", not "no such campaign". */
  isReady(): boolean;
  /** The live campaign with this token, only when it belongs to `ownerId`; undefined for a deleted or unknown one. */
  campaign(ownerId: string, token: string): CampaignRecord | undefined;
}

/**
 * Mirrors the campaign registry KV bucket (written by management, see @cm/contracts) into
 * memory: replays the current state at start (not ready until done), then follows live updates.
 */
export class CampaignRegistryWatcher implements CampaignLookup {
  private readonly state: CampaignRegistryState;
  private readonly mirror: KvMirror;

  constructor(nc: NatsConnection, bucket: string, replicas: number, logger: Logger) {
    this.state = new CampaignRegistryState((key) =>
      logger.warn('campaign registry entry ignored: not a valid campaign record or part', { key }),
    );
    this.mirror = new KvMirror({
      nc,
      bucket,
      bucketOptions: campaignRegistryBucketOptions(replicas),
      what: 'campaign registry',
      logger,
      apply: (entry) => this.state.apply(entry),
      rewatched: () => this.state.restart(),
      replayed: () => this.state.replayed(),
    });
  }

  isReady(): boolean {
    return this.mirror.isReady();
  }

  campaign(ownerId: string, token: string): CampaignRecord | undefined {
    return this.state.campaign(ownerId, token);
  }

  /** Live campaigns known. */
  get size(): number {
    return this.state.size;
  }

  /** Opens (or creates) the bucket and starts following it; resolves when the replay is done. */
  start(): Promise<void> {
    return this.mirror.start();
  }

  stop(): Promise<void> {
    return this.mirror.stop();
  }
}
