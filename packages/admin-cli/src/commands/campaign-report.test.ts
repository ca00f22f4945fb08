import type { CliIo } from '../cli-io';
import { runCli } from '../run-cli';
import { scorecardFixture } from '../test-support/scorecard-fixture';
import { formatScorecard } from './campaign-report';

// the whole CLI in-process; fetch answers like the Events API (and management's /user/me/) and records what was sent
async function run(argv: string[], env: Record<string, string>) {
  let stdout = '';
  let stderr = '';
  const sent: Array<{ path: string; body: any }> = [];
  const io: CliIo = {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    env,
    readStdin: async () => '',
    readFile: async () => {
      throw Object.assign(new Error('no file'), { code: 'ENOENT' });
    },
    fetch: (async (input: string, init: RequestInit) => {
      const path = new URL(input).pathname;
      const body = init.body ? JSON.parse(String(init.body)) : undefined;
      sent.push({ path, body });
      const json = (status: number, value: unknown) =>
        new Response(JSON.stringify(value), { status, headers: { 'content-type': 'application/json' } });
      if (path === '/api/v3/user/me/') return json(200, { unique_id: '1718000000000123' });
      if (body.attentive_ms === 9_999_999)
        return json(400, {
          error: {
            code: 'validation_error',
            message: 'invalid body',
            details: [{ field: 'attentive_ms', message: 'must be less than or equal to 3600000' }],
          },
        });
      return json(200, scorecardFixture(body));
    }) as typeof fetch,
  };
  const code = await runCli(argv, io);
  return { code, stdout, stderr, sent };
}

const KEY_ONLY = { EVENTS_API_KEY: 'ek_secret_key' };

describe('campaign report', () => {
  test('when run for a campaign, then the scorecard is a table of figures, a pacing row per day and the caveats', async () => {
    const r = await run(['campaign', 'report', 'autumn', '--owner', '42'], KEY_ONLY);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.sent).toEqual([{ path: '/api/v1/events/scorecard/', body: { owner_id: '42', campaign: 'autumn' } }]);
    expect(r.stdout).toBe(
      [
        'Campaign autumn "Autumn looks" (Awareness)',
        '  flight        2026-10-24 .. 2026-10-27 (Europe/Paris): day 4 of 4, as of 2026-11-26T10:23:45+01:00',
        '  content       2 URLs',
        '  impressions   9 impression',
        '  clicks        2 click (CTR 22.22 %)',
        '  reach         4 distinct visitors',
        '  goal          6 (66.7 % reached)',
        '  frequency     2.25 per visitor; reached 2+ 2, 3+ 2, 5+ 0, 10+ 0',
        '  engaged time  avg 13.4 s, median ~12.0 s, 60.0 % at least 10.0 s (5 engagement events)',
        '  on target     BE, FR (campaign): reach 3, impressions 8 (88.9 %)',
        '',
        'day         impressions  reach (to date)  goal to date  pace',
        '2026-10-24  3            2                2             ahead',
        '2026-10-25  3            4                3             ahead',
        '2026-10-26  3            4                5             behind',
        '2026-10-27  0            4                6             behind',
        '',
        'Caveats',
        '- Reach counts visitors as the pixel identified them, and events do not record how.',
        '',
      ].join('\n'),
    );
  });

  test('when --json and the names are given, then stdout is the Events API answer for those names', async () => {
    const r = await run(
      [
        'campaign',
        'report',
        'autumn',
        '--json',
        '--impression-name',
        'view',
        '--click-name',
        'tap',
        '--attentive-ms',
        '15000',
      ],
      { ...KEY_ONLY, MANAGEMENT_API_TOKEN: 'owner-token-123' },
    );
    expect(r.code).toBe(0);
    expect(r.sent.map((s) => s.path)).toEqual(['/api/v3/user/me/', '/api/v1/events/scorecard/']);
    expect(r.sent[1]!.body).toEqual({
      owner_id: '1718000000000123',
      campaign: 'autumn',
      impression_name: 'view',
      click_name: 'tap',
      attentive_ms: 15_000,
    });
    expect(JSON.parse(r.stdout)).toEqual(scorecardFixture(r.sent[1]!.body));
  });

  test('when estimates, a flight not started and no targets are answered, then the text says so', () => {
    const card = scorecardFixture({ owner_id: '1', campaign: 'c' });
    const estimated = { value: 51_234, exact: false, error: 0.0156 };
    const text = formatScorecard({
      ...card,
      reach: estimated,
      on_target: null,
      campaign: { ...card.campaign, reach_goal: null },
      goal_progress: null,
      pacing: { flight_days: 30, days: [] },
    });
    expect(text).toMatch(/reach\s+51,234 \(estimate, 1\.6 % standard error\) distinct visitors/);
    expect(text).toMatch(/goal\s+none/);
    expect(text).toMatch(/on target\s+no target countries/);
    expect(text).toMatch(/Pacing: the flight has not started/);
  });

  test('when --attentive-ms is not a number, then exit 2 before any request; a value the service refuses is its 400', async () => {
    const bad = await run(['campaign', 'report', 'autumn', '--owner', '42', '--attentive-ms', '10s'], KEY_ONLY);
    expect(bad.code).toBe(2);
    expect(bad.sent).toEqual([]);
    const refused = await run(['campaign', 'report', 'autumn', '--owner', '42', '--attentive-ms', '9999999'], KEY_ONLY);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/400 validation_error.*\n\s+attentive_ms: must be less than/);
  });

  test('when help is asked, then the command and its options are listed', async () => {
    const r = await run(['campaign', 'report', '--help'], {});
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Usage: campaign-events-admin campaign report CAMPAIGN_TOKEN/);
    expect(r.stdout).toMatch(/--attentive-ms MS/);
    expect(r.stdout).toMatch(/--owner UNIQUE_ID/);
    const top = await run(['--help'], {});
    expect(top.stdout).toMatch(/campaign report CAMPAIGN_TOKEN/);
  });
});
