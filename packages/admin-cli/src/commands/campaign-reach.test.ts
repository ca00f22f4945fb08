import type { CliIo } from '../cli-io';
import { runCli } from '../run-cli';
import { formatReach, type CampaignReachView } from './campaign-reach';
import { scorecardFixture } from '../test-support/scorecard-fixture';

// the whole CLI in-process; fetch answers like the two services and records what was sent
const OWNER = { unique_id: '1718000000000123', email: 'o@example.com', user_name: 'o', timezone: 'Europe/Berlin' };

interface Replies {
  card?: Record<string, unknown>;
  status?: number;
}

async function run(
  argv: string[],
  env: Record<string, string>,
  replies: Replies = {},
  files: Record<string, string> = {},
) {
  let stdout = '';
  let stderr = '';
  const sent: Array<{ url: string; authorization: string | null; body: any }> = [];
  const reply = (status: number, body: unknown) =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  const io: CliIo = {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    env,
    readStdin: async () => '',
    readFile: async (path) => {
      if (path in files) return files[path]!;
      throw Object.assign(new Error('no file'), { code: 'ENOENT' });
    },
    fetch: (async (input: string, init: RequestInit) => {
      const headers = new Headers(init.headers);
      const body = init.body ? JSON.parse(String(init.body)) : undefined;
      sent.push({ url: input, authorization: headers.get('authorization'), body });
      const path = new URL(input).pathname;
      if (replies.status === 401) return reply(401, { error: { code: 'unauthorized', message: 'unknown api token' } });
      if (path === '/api/v3/user/me/') return reply(200, OWNER);
      if (path === '/api/v1/events/scorecard/' && body.campaign === 'camp1')
        return reply(200, { ...scorecardFixture(body), ...replies.card });
      return reply(400, {
        error: {
          code: 'validation_error',
          message: 'invalid body',
          details: [{ field: 'campaign', message: 'is not a campaign of this owner_id' }],
        },
      });
    }) as typeof fetch,
  };
  const code = await runCli(argv, io);
  return { code, stdout, stderr, sent };
}

const USER_ENV = { MANAGEMENT_API_TOKEN: 'owner-token-123', EVENTS_API_KEY: 'ek_secret_key' };

describe('campaign reach', () => {
  test('when run with the owner token and key, then it prints reach, goal, progress and exactness without any operator token', async () => {
    const r = await run(['campaign', 'reach', 'camp1'], USER_ENV);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(/reach\s+4 distinct visitors \(exact\)/);
    expect(r.stdout).toMatch(/goal\s+6\n/);
    expect(r.stdout).toMatch(/progress\s+66\.7 %/);
    expect(r.stdout).toMatch(/events\s+9 impression events on 2 content URLs/);
    expect(r.stdout).toMatch(/dates\s+2026-10-24 \.\. 2026-10-27 \(Europe\/Paris\)/);
    expect(r.sent.map((s) => new URL(s.url).pathname)).toEqual(['/api/v3/user/me/', '/api/v1/events/scorecard/']);
    expect(r.sent[0]!.authorization).toBe('Bearer owner-token-123');
    const scorecard = r.sent[1]!;
    expect(new URL(scorecard.url).searchParams.get('api_key')).toBe('ek_secret_key');
    expect(scorecard.body).toEqual({
      owner_id: OWNER.unique_id,
      campaign: 'camp1',
      impression_name: 'impression',
      click_name: 'click',
      engagement_name: 'engagement',
    });
    expect(r.stdout + r.stderr).not.toMatch(/owner-token-123|ek_secret_key/);
  });

  test('when --owner is given, then no management token is needed and management is not asked', async () => {
    const r = await run(['campaign', 'reach', 'camp1', '--owner', '42'], { EVENTS_API_KEY: 'ek_secret_key' });
    expect(r.code).toBe(0);
    expect(r.sent.map((s) => new URL(s.url).pathname)).toEqual(['/api/v1/events/scorecard/']);
    expect(r.sent[0]!.body.owner_id).toBe('42');
  });

  test('when --event, --json and secrets from files are given, then that event is counted and stdout is the JSON result', async () => {
    const files = { '/t': 'owner-token-123\n', '/k': 'ek_secret_key\n' };
    const argv = [
      'campaign',
      'reach',
      'camp1',
      '--event',
      'view',
      '--json',
      '--api-token-file',
      '/t',
      '--api-key-file',
      '/k',
    ];
    const estimated = { value: 12_345, exact: false, error: 0.0156 };
    const r = await run(argv, {}, { card: { reach: estimated, goal_progress: 12_345 / 6 } }, files);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      campaign_token: 'camp1',
      reach: 12_345,
      exact: false,
      error: 0.0156,
      goal: 6,
      event_name: 'view',
      url_count: 2,
    });
    expect(r.sent[1]!.body.impression_name).toBe('view');
  });

  test('when the campaign has no goal, then progress says so; an estimate says it is one, with its error', () => {
    const base: CampaignReachView = {
      campaign_token: 'c',
      reach: 1_234_567,
      exact: false,
      error: 0.0156,
      goal: null,
      progress: null,
      events: 2_000_000,
      owner_id: '1',
      start_date: '2026-03-01',
      end_date: '2026-03-31',
      timezone: 'UTC',
      url_count: 3,
      event_name: 'impression',
    };
    const text = formatReach(base);
    expect(text).toMatch(/reach\s+1,234,567 distinct visitors \(estimate, 1\.6 % standard error\)/);
    expect(text).toMatch(/goal\s+none\n\s+progress\s+none \(the campaign has no reach goal\)/);
    expect(formatReach({ ...base, goal: 0 })).toMatch(/progress\s+none \(the goal is 0\)/);
  });

  test('when a credential is missing, then exit 2 naming its variable, before any request', async () => {
    const r = await run(['campaign', 'reach', 'camp1'], { MANAGEMENT_API_TOKEN: 'owner-token-123' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no Events API key: set EVENTS_API_KEY .* --api-key-file PATH/);
    expect(r.sent).toEqual([]);
    const noToken = await run(['campaign', 'reach', 'camp1'], { EVENTS_API_KEY: 'ek_secret_key' });
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toMatch(/MANAGEMENT_API_TOKEN/);
    const badOwner = await run(['campaign', 'reach', 'camp1', '--owner', 'me'], { EVENTS_API_KEY: 'ek_secret_key' });
    expect(badOwner.code).toBe(2);
    expect(badOwner.sent).toEqual([]);
  });

  test('when the token is refused or the campaign unknown, then exit 1 with the owner-credential hint, never the key', async () => {
    const refused = await run(['campaign', 'reach', 'camp1'], USER_ENV, { status: 401 });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/401 unauthorized: GET \/api\/v3\/.*unknown api token/);
    expect(refused.stderr).toMatch(/MANAGEMENT_API_TOKEN/);
    expect(refused.stderr).not.toMatch(/ADMIN_TOKEN/);
    const unknown = await run(['campaign', 'reach', 'nope', '--json'], USER_ENV);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stderr)).toMatchObject({
      status: 400,
      error: { code: 'validation_error', details: [{ field: 'campaign' }] },
    });
    expect(unknown.stderr).not.toMatch(/ek_secret_key/);
  });

  test('when help is asked, then the credentials and --owner are explained', async () => {
    const r = await run(['campaign', 'reach', '--help'], {});
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Usage: campaign-events-admin campaign reach CAMPAIGN_TOKEN/);
    expect(r.stdout).toMatch(/--api-token-file PATH/);
    expect(r.stdout).toMatch(/--owner UNIQUE_ID/);
    expect(r.stdout).toMatch(/any number of them/);
  });
});
