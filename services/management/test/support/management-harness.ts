import { Kvm, type KV } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { MongoClient, type Db } from 'mongodb';
import {
  assembleCampaignRecord,
  campaignPartKey,
  campaignRegistryBucketOptions,
  decodeCampaignHeader,
  decodeCampaignPart,
  decodeOwnerRecord,
  ownerRegistryBucketOptions,
  type CampaignRegistryValue,
  type OwnerRecord,
} from '@cm/contracts';
import { createLogger } from '@cm/platform';
import { httpRequester, uniqueName, type HttpResult, type TestRequest } from '@cm/testkit';
import { startManagement, type ManagementOptions, type ManagementSystem } from '../../src/composition-root';
import { loadManagementConfig, type ManagementConfig } from '../../src/config';

export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789';

export type { HttpResult };

export interface AccountView {
  user_name: string;
  email: string;
  unique_id: string;
  api_token: string;
}

export interface ManagementHarness {
  baseUrl: string;
  config: ManagementConfig;
  system: ManagementSystem;
  /** Raw request; JSON-encodes an object body unless a string body and content type are given. */
  request: TestRequest;
  /** Operator bootstrap of a fresh account owner; returns its view (with api_token). */
  createAccount(email?: string): Promise<AccountView>;
  /** A sub-user of the account whose token is given. */
  createSubUser(ownerToken: string, email?: string): Promise<AccountView>;
  /** The test's own handle on the service's database (arrange and assert). */
  db(): Promise<Db>;
  /** The test's own handle on the owner registry bucket. */
  registryBucket(): Promise<KV>;
  /** The bucket's record for an owner (undefined when absent, purged or not a record). */
  ownerRecord(ownerId: string): Promise<OwnerRecord | undefined>;
  /** The test's own handle on the campaign registry bucket. */
  campaignBucket(): Promise<KV>;
  /** The bucket's record of a campaign, its parts read and assembled (undefined when absent, incomplete or invalid). */
  campaignRecord(token: string): Promise<CampaignRegistryValue | undefined>;
  /** A counter or gauge from /metrics, by name and one label (0 when the series is not there yet). */
  metric(name: string, label?: [string, string]): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Polls `read` until `ok` holds for its value (a read that throws counts as not yet); returns that
 * value. `ms` bounds the wait for that signal, never the speed of the service: generous by default.
 */
export async function waitFor<T>(read: () => Promise<T>, ok: (value: T) => boolean, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  let last: T | undefined;
  for (;;) {
    try {
      last = await read();
      if (ok(last)) return last;
    } catch {
      /* not yet */
    }
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms; last value ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

let counter = 0;
const uniqueEmail = (who: string) => `${who}${++counter}-${Date.now()}@example.com`;

/** The real service on port 0 against the test run's NATS and MongoDB, with its own database. */
export async function startManagementHarness(
  env: Record<string, string> = {},
  options: ManagementOptions = {},
): Promise<ManagementHarness> {
  const config = loadManagementConfig({
    NODE_ENV: 'test',
    MONGO_URL: process.env.MONGO_URL,
    NATS_URL: process.env.NATS_URL,
    MONGO_DB: uniqueName('mgmt'),
    OWNER_REGISTRY_BUCKET: uniqueName('owners'),
    CAMPAIGN_REGISTRY_BUCKET: uniqueName('campaigns'),
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    REGISTRY_RELAY_INTERVAL_MS: '500',
    // every test talks from 127.0.0.1 and many check 401s: the per-address failure limit has its own tests
    AUTH_FAILURE_RATE_LIMIT_PER_MINUTE: '100000',
    SHUTDOWN_TIMEOUT_MS: '2000',
    ...env,
  });
  const logger = createLogger({ service: 'management-test', level: 'error', silent: process.env.TEST_LOGS !== '1' });
  const system = await startManagement(config, logger, 0, undefined, options);
  const baseUrl = `http://127.0.0.1:${system.port}`;
  const request = httpRequester(baseUrl);
  let mongo: MongoClient | undefined;
  let nc: NatsConnection | undefined;
  let kv: KV | undefined;
  let campaignKv: KV | undefined;

  const harness: ManagementHarness = {
    baseUrl,
    config,
    system,
    request,
    async createAccount(email) {
      const res = await request('POST', '/admin/v1/accounts', {
        token: TEST_ADMIN_TOKEN,
        body: { email: email ?? uniqueEmail('owner'), password: 'correct horse battery' },
      });
      if (res.status !== 201) throw new Error(`createAccount: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    },
    async createSubUser(ownerToken, email) {
      const res = await request('POST', '/api/v3/user/', {
        token: ownerToken,
        body: { email: email ?? uniqueEmail('sub'), password: 'correct horse battery' },
      });
      if (res.status !== 200) throw new Error(`createSubUser: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    },
    async db() {
      mongo ??= await MongoClient.connect(config.MONGO_URL);
      return mongo.db(config.MONGO_DB);
    },
    async registryBucket() {
      nc ??= await connect({ servers: config.NATS_URL });
      // the service creates the bucket on its first write; a test may get there first
      kv ??= await new Kvm(nc).create(
        config.OWNER_REGISTRY_BUCKET,
        ownerRegistryBucketOptions(config.OWNER_REGISTRY_REPLICAS),
      );
      return kv;
    },
    async ownerRecord(ownerId) {
      const entry = await (await harness.registryBucket()).get(ownerId);
      return entry?.operation === 'PUT' ? decodeOwnerRecord(entry.value) : undefined;
    },
    async campaignBucket() {
      nc ??= await connect({ servers: config.NATS_URL });
      campaignKv ??= await new Kvm(nc).create(
        config.CAMPAIGN_REGISTRY_BUCKET,
        campaignRegistryBucketOptions(config.CAMPAIGN_REGISTRY_REPLICAS),
      );
      return campaignKv;
    },
    async campaignRecord(token) {
      const bucket = await harness.campaignBucket();
      const entry = await bucket.get(token);
      const header = entry?.operation === 'PUT' ? decodeCampaignHeader(entry.value) : undefined;
      if (!header) return undefined;
      const parts: (string[] | undefined)[] = [];
      for (let index = 0; !header.deleted && index < (header.url_parts ?? 0); index++) {
        const key = { token, revision: header.revision, index };
        const part = await bucket.get(campaignPartKey(token, header.revision, index));
        parts.push(part?.operation === 'PUT' ? decodeCampaignPart(part.value, key)?.urls : undefined);
      }
      return assembleCampaignRecord(header, parts);
    },
    async metric(name, label) {
      const text = await (await fetch(`${baseUrl}/metrics`)).text();
      const labelled = label ? `[^}]*${label[0]}="${label[1]}"` : '';
      return Number(new RegExp(`^${name}\\{${labelled}[^}]*\\} (\\d+(?:\\.\\d+)?)$`, 'm').exec(text)?.[1] ?? 0);
    },
    async stop() {
      await system.stop();
      await nc?.close();
      await mongo?.close();
    },
  };
  return harness;
}
