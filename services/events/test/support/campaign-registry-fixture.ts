import { Kvm, type KV } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { campaignRegistryBucketOptions, type CampaignRecord } from '@cm/contracts';
import { connectNats, createLogger } from '@cm/platform';
import { uniqueName } from '@cm/testkit';
import { CampaignRegistryWatcher } from '../../src/registry/campaign-registry-watcher';
import { writeCampaignRecord } from './campaign-kv';
import { waitUntil } from './events-harness';

/**
 * A campaign registry bucket of the test's own on the test run's NATS, written the way management
 * writes it (a large campaign's URL parts before its header), and the reporting role's watcher of
 * it: the CampaignLookup a reporting harness is given.
 */
export interface CampaignRegistryFixture {
  lookup: CampaignRegistryWatcher;
  /** Writes the record (parts, then header) and waits until the watcher holds this revision. */
  publish(record: CampaignRecord): Promise<void>;
  /** Writes the campaign's tombstone and waits until the watcher no longer knows it. */
  remove(record: Pick<CampaignRecord, 'token' | 'owner_id' | 'revision'>): Promise<void>;
  stop(): Promise<void>;
}

/** `start: false`: the watcher is never started, as a reporting process whose replay is not complete. */
export async function startCampaignRegistry(opts: { start?: boolean } = {}): Promise<CampaignRegistryFixture> {
  const url = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
  const bucket = uniqueName('campaigns_reports');
  const logger = createLogger({ service: 'campaign-registry-test', level: 'warn' });
  const writer: NatsConnection = await connect({ servers: url });
  const kv: KV = await new Kvm(writer).create(bucket, campaignRegistryBucketOptions(1));
  const watched = await connectNats({ url, name: 'campaign-registry-test', logger });
  const lookup = new CampaignRegistryWatcher(watched, bucket, 1, logger);
  if (opts.start !== false) await lookup.start();
  return {
    lookup,
    async publish(record) {
      await writeCampaignRecord(kv, record);
      await waitUntil(
        () => lookup.campaign(record.owner_id, record.token)?.revision === record.revision,
        20_000,
        `campaign ${record.token} revision ${record.revision} in the watcher`,
      );
    },
    async remove({ token, owner_id, revision }) {
      await writeCampaignRecord(kv, { token, owner_id, revision: revision + 1, deleted: true });
      await waitUntil(() => lookup.campaign(owner_id, token) === undefined, 20_000, `campaign ${token} gone`);
    },
    async stop() {
      if (opts.start !== false) await lookup.stop();
      await kv.destroy().catch(() => undefined);
      await watched.drain();
      await writer.drain();
    },
  };
}
