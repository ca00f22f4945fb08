import { execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '@cm/testkit';
import {
  startManagementHarness,
  type ManagementHarness,
} from '../../../services/management/test/support/management-harness';
import {
  TEST_ADMIN_TOKEN,
  startEventsHarness,
  type EventsHarness,
} from '../../../services/events/test/support/events-harness';

// the compiled bin as an operator runs it: a real process, real stdin, exit codes, env only
const root = repoRoot(__dirname);
const bin = path.join(root, 'packages/admin-cli/dist/main.js');
let management: ManagementHarness;
let events: EventsHarness;

beforeAll(async () => {
  await promisify(execFile)(
    process.execPath,
    [path.join(root, 'node_modules/typescript/bin/tsc'), '-b', path.join(root, 'packages/admin-cli')],
    { cwd: root },
  );
  management = await startManagementHarness();
  events = await startEventsHarness({ EVENTS_ROLES: 'reporting' });
}, 60_000);
afterAll(async () => {
  await events?.stop();
  await management?.stop();
});

function runBin(
  args: string[],
  opts: { stdin?: string; env?: Record<string, string> } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: {
        PATH: process.env.PATH ?? '',
        MANAGEMENT_URL: management.baseUrl,
        EVENTS_URL: events.baseUrl,
        ADMIN_TOKEN: TEST_ADMIN_TOKEN,
        ...opts.env,
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(opts.stdin ?? '');
  });
}

describe('the compiled campaign-events-admin', () => {
  test('when help is asked, then exit 0 with the overview; a usage error exits 2', async () => {
    const help = await runBin(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage:');
    const wrong = await runBin(['keys', 'frob']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("unknown command 'keys frob'");
  });

  test('when an account is created with the password piped in, then exit 0 and stdout parses as JSON', async () => {
    const email = `bin-${Date.now()}@example.com`;
    const r = await runBin(['account', 'create', '--email', email, '--password-stdin', '--json'], {
      stdin: 'piped password 123\n',
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ email, unique_id: expect.stringMatching(/^\d+$/) });
    expect(r.stderr).toMatch(/only once/);
  });

  test('when the pipeline is asked with --json, then exit 0 and the status parses', async () => {
    const r = await runBin(['pipeline', 'status', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).stream.name).toBe(events.config.EVENTS_STREAM);
  });

  test('when the API answers an error, then exit 1 with its message on stderr', async () => {
    const r = await runBin(['keys', 'revoke', '00000000-0000-0000-0000-000000000000']);
    expect(r).toMatchObject({ code: 1, stdout: '' });
    expect(r.stderr).toBe('campaign-events-admin: error: 404 not_found: no such API key\n');
  });
});
