import { readFileSync } from 'node:fs';
import path from 'node:path';
import { freePort } from './ports';
import { repoRoot } from './repo-root';
import { spawnService, type ServiceName } from './service-process';

/** What docker-compose.yml shipped as its default before it required ADMIN_TOKEN from the environment. */
const OLD_COMPOSE_TOKEN = 'local-compose-admin-token-change-me';

function k8sPlaceholderToken(): string {
  const file = path.join(repoRoot(), 'deploy', 'k8s', 'base', 'events-secrets.placeholder.env');
  const line = readFileSync(file, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('ADMIN_TOKEN='));
  if (!line) throw new Error(`no ADMIN_TOKEN in ${file}`);
  return line.slice('ADMIN_TOKEN='.length);
}

const cases: [ServiceName, string, string][] = [];
for (const service of ['management', 'events'] as const) {
  cases.push(
    [service, 'the old compose token', OLD_COMPOSE_TOKEN],
    [service, 'the Kubernetes placeholder', k8sPlaceholderToken()],
  );
}

describe('operator token in production', () => {
  test.each(cases)(
    'when %s starts in production with %s, then it exits 1 at once with a clear message',
    async (service, _what, token) => {
      const port = String(await freePort());
      const proc = spawnService(service, {
        NODE_ENV: 'production',
        ADMIN_TOKEN: token,
        MANAGEMENT_PORT: port,
        EVENTS_PORT: port,
        // nothing listens here: the service must refuse before it tries to connect
        MONGO_URL: 'mongodb://127.0.0.1:1',
        NATS_URL: 'nats://127.0.0.1:1',
      });
      const { code } = await proc.exited;
      expect(code).toBe(1);
      expect(proc.output()).toMatch(/ADMIN_TOKEN.*not safe for production/);
      expect(proc.output()).toMatch(/openssl rand -hex 32/);
      expect(proc.output()).not.toContain(token);
    },
  );
});
