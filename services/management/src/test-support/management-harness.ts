import { createLogger } from '@cm/platform';
import { httpRequester, uniqueName, type HttpResult, type TestRequest } from '@cm/testkit';
import { startManagement, type ManagementSystem } from '../composition-root';
import { loadManagementConfig, type ManagementConfig } from '../config';

export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789';

export type { HttpResult };

export interface ManagementHarness {
  baseUrl: string;
  config: ManagementConfig;
  system: ManagementSystem;
  /** Raw request; JSON-encodes an object body unless a string body and content type are given. */
  request: TestRequest;
  /** Operator bootstrap of a fresh account owner; returns its view (with api_token). */
  createAccount(email?: string): Promise<{ user_name: string; email: string; unique_id: string; api_token: string }>;
  stop(): Promise<void>;
}

let counter = 0;

/** The real service on port 0 against the test run's NATS and MongoDB, with its own database. */
export async function startManagementHarness(env: Record<string, string> = {}): Promise<ManagementHarness> {
  const config = loadManagementConfig({
    NODE_ENV: 'test',
    MONGO_URL: process.env.MONGO_URL,
    NATS_URL: process.env.NATS_URL,
    MONGO_DB: uniqueName('mgmt'),
    OWNER_REGISTRY_BUCKET: uniqueName('owners'),
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    REGISTRY_RELAY_INTERVAL_MS: '500',
    SHUTDOWN_TIMEOUT_MS: '2000',
    ...env,
  });
  const logger = createLogger({ service: 'management-test', level: 'error', silent: process.env.TEST_LOGS !== '1' });
  const system = await startManagement(config, logger, 0);
  const baseUrl = `http://127.0.0.1:${system.port}`;

  const request = httpRequester(baseUrl);

  return {
    baseUrl,
    config,
    system,
    request,
    async createAccount(email) {
      const res = await request('POST', '/admin/v1/accounts', {
        token: TEST_ADMIN_TOKEN,
        body: { email: email ?? `owner${++counter}-${Date.now()}@example.com`, password: 'correct horse battery' },
      });
      if (res.status !== 201) throw new Error(`createAccount: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    },
    stop: () => system.stop(),
  };
}
