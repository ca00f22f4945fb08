import type { CliIo } from '../cli-io';
import { runCli } from '../run-cli';
import { formatReach, type CampaignReachView } from './campaign-reach';

// the whole CLI in-process; fetch answers like the two services and records what was sent
const OWNER = { unique_id: '1718000000000123', email: 'o@example.com', user_name: 'o', timezone: 'Europe/Berlin' };
const url = (i: number) => ({
  url: `https://pub.example/${i}`,
  content_type: null,
  added: '2026-02-01 10:00:00',
  token: `u${i}`,
  state: 'active',
  title: '',
});
const CAMPAIGN = {
  name: 'Spring',
  token: 'camp1',
  start_date: '2026-03-01',
  end_date: '2026-03-31',
  category: 'Technology',
  brand: null,
  reach: 8,
  target_geography: [],
  objective: 'Reach',
  content: [url(1), url(2)],
};

interface Replies {
  campaign?: unknown;
  rows?: unknown;
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
  const sent: Array<{ url: string; authorization: string | null; body: unknown }> = [];
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
      sent.push({
        url: input,
        authorization: headers.get('authorization'),
        body: init.body ? JSON.parse(String(init.body)) : undefined,
      });
      const path = new URL(input).pathname;
      if (replies.status === 401) return reply(401, { error: { code: 'unauthorized', message: 'unknown api token' } });
      if (path === '/api/v3/user/me/') return reply(200, OWNER);
      if (path === '/api/v3/campaign/camp1/') return reply(200, replies.campaign ?? CAMPAIGN);
      if (path === '/api/v1/events/')
        return reply(200, replies.rows ?? [{ name: 'impression', value: 9, uniques: 6, uniques_exact: true }]);
      return reply(404, { error: { code: 'not_found', message: 'no such campaign' } });
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
    expect(r.stdout).toMatch(/reach\s+6 distinct visitors \(exact\)/);
    expect(r.stdout).toMatch(/goal\s+8\n/);
    expect(r.stdout).toMatch(/progress\s+75\.0 %/);
    expect(r.stdout).toMatch(/events\s+9 impression events on 2 content URLs/);
    expect(r.stdout).toMatch(/dates\s+2026-03-01 \.\. 2026-03-31 \(Europe\/Berlin\)/);
    expect(r.sent.filter((s) => s.url.includes('/api/v3/')).map((s) => s.authorization)).toEqual([
      'Bearer owner-token-123',
      'Bearer owner-token-123',
    ]);
    const report = r.sent.find((s) => s.url.includes('/api/v1/events/'))!;
    expect(new URL(report.url).searchParams.get('api_key')).toBe('ek_secret_key');
    expect(report.body).toMatchObject({ name: 'impression', timezone: 'Europe/Berlin', metrics: ['count', 'uniques'] });
    expect(r.stdout + r.stderr).not.toMatch(/owner-token-123|ek_secret_key/);
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
    const r = await run(argv, {}, { rows: [{ name: 'view', value: 2, uniques: 12_345, uniques_exact: false }] }, files);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      campaign_token: 'camp1',
      reach: 12_345,
      exact: false,
      goal: 8,
      event_name: 'view',
      url_count: 2,
    });
  });

  test('when the campaign has no goal, then progress says so; an estimate says it is one', () => {
    const base: CampaignReachView = {
      campaign_token: 'c',
      reach: 1_234_567,
      exact: false,
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
    expect(text).toMatch(/reach\s+1,234,567 distinct visitors \(estimate, about 0\.81 % standard error\)/);
    expect(text).toMatch(/goal\s+none\n\s+progress\s+none \(the campaign has no reach goal\)/);
    expect(formatReach({ ...base, goal: 0 })).toMatch(/progress\s+none \(the goal is 0\)/);
  });

  test('when the campaign has more than 100 URLs, then exit 1 saying so and no report is asked', async () => {
    const many = { ...CAMPAIGN, content: Array.from({ length: 101 }, (_, i) => url(i)) };
    const r = await run(['campaign', 'reach', 'camp1'], USER_ENV, { campaign: many });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/101 content URLs.*at most 100/);
    expect(r.sent.some((s) => s.url.includes('/api/v1/events/'))).toBe(false);
  });

  test('when a credential is missing, then exit 2 naming its variable, before any request', async () => {
    const r = await run(['campaign', 'reach', 'camp1'], { MANAGEMENT_API_TOKEN: 'owner-token-123' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no Events API key: set EVENTS_API_KEY .* --api-key-file PATH/);
    expect(r.sent).toEqual([]);
  });

  test('when the token is refused or the campaign unknown, then exit 1 with the owner-credential hint, never the key', async () => {
    const refused = await run(['campaign', 'reach', 'camp1'], USER_ENV, { status: 401 });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/401 unauthorized: GET \/api\/v3\/.*unknown api token/);
    expect(refused.stderr).toMatch(/MANAGEMENT_API_TOKEN/);
    expect(refused.stderr).not.toMatch(/ADMIN_TOKEN/);
    const unknown = await run(['campaign', 'reach', 'nope', '--json'], USER_ENV);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stderr)).toMatchObject({ status: 404, error: { code: 'not_found' } });
  });

  test('when help is asked, then the credentials and the 100-URL limit are explained', async () => {
    const r = await run(['campaign', 'reach', '--help'], {});
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Usage: campaign-events-admin campaign reach CAMPAIGN_TOKEN/);
    expect(r.stdout).toMatch(/--api-token-file PATH/);
    expect(r.stdout).toMatch(/more than 100 content URLs/);
  });
});
