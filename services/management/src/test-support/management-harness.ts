import { createLogger } from '@cm/platform';
import { uniqueName } from '@cm/testkit';
import { startManagement, type ManagementSystem } from '../composition-root';
import { loadManagementConfig, type ManagementConfig } from '../config';

export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789';

export interface HttpResult<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface ManagementHarness {
  baseUrl: string;
  config: ManagementConfig;
  system: ManagementSystem;
  /** Raw request; JSON-encodes an object body unless a string body and content type are given. */
  request<T = any>(method: string, path: string, opts?: { token?: string; body?: unknown; contentType?: string; headers?: Record<string, string> }): Promise<HttpResult<T>>;
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

  const request: ManagementHarness['request'] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let body: string | undefined;
    if (opts.body !== undefined) {
      body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
      headers['content-type'] = opts.contentType ?? 'application/json';
    }
    const res = await fetch(baseUrl + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON: keep the text so a test can assert on it */
    }
    return { status: res.status, body: parsed as any, headers: res.headers };
  };

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
