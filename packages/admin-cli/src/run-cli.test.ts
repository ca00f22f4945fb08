import type { CliIo } from './cli-io';
import { runCli } from './run-cli';

/** In-process run with captured output; fetch fails loudly because these cases must not call out. */
async function run(argv: string[], env: Record<string, string> = { ADMIN_TOKEN: 'op-token' }, stdin = '') {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    env,
    readStdin: async () => stdin,
    readFile: async () => {
      throw Object.assign(new Error('no file'), { code: 'ENOENT' });
    },
    fetch: (async () => {
      throw new Error('no network in unit tests');
    }) as typeof fetch,
  };
  const code = await runCli(argv, io);
  return { code, stdout, stderr };
}

describe('exit codes and streams', () => {
  test('when help is asked at any level, then it goes to stdout with exit 0', async () => {
    for (const argv of [['--help'], ['keys', '--help'], ['buckets', 'drop-expired', '-h']]) {
      const r = await run(argv);
      expect(r).toMatchObject({ code: 0, stderr: '' });
      expect(r.stdout).toMatch(/^Usage:|Usage:/);
    }
  });

  test('when the command line is wrong, then exit 2 with the reason on stderr and nothing on stdout', async () => {
    const r = await run(['keys', 'create', '--owners', '1']);
    expect(r).toMatchObject({ code: 2, stdout: '' });
    expect(r.stderr).toMatch(
      /^campaign-events-admin: Unknown option '--owners'\nRun 'campaign-events-admin keys create --help' for usage\.\n$/,
    );
  });

  test('when no command is given, then exit 2 and the overview on stderr', async () => {
    const r = await run([]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no command given');
    expect(r.stderr).toContain('Commands:');
  });

  test('when no operator token is configured, then exit 2 before any request', async () => {
    const r = await run(['pipeline', 'status'], {});
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no operator token: set ADMIN_TOKEN/);
  });

  test.each([
    [['account', 'create', '--email', 'a@example.com'], /missing password/],
    [
      ['account', 'create', '--email', 'a@example.com', '--password', 'x', '--password-stdin'],
      /either --password or --password-stdin/,
    ],
    [['account', 'create', '--email', 'a@example.com', '--password-stdin'], /standard input is empty/],
  ])('when the password is missing or given twice (%j), then exit 2 with a hint', async (argv, message) => {
    const r = await run(argv);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toContain("Run 'campaign-events-admin account create --help'");
  });

  test('when the request cannot be sent, then exit 1; with --json the error is JSON on stderr', async () => {
    const r = await run(['keys', 'list', '--json']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toEqual({
      error: {
        code: 'network_error',
        message: expect.stringContaining('cannot reach the events service at http://127.0.0.1:3001'),
      },
    });
  });
});
