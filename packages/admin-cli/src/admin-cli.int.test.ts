import { freePort } from '@cm/testkit';
import {
  startManagementHarness,
  type ManagementHarness,
} from '../../../services/management/test/support/management-harness';
import { bucketName } from '../../../services/events/src/storage/bucket-naming';
import { writerConsumerConfig } from '../../../services/events/src/stream/stream-config';
import {
  TEST_ADMIN_TOKEN,
  newOwnerId,
  startEventsHarness,
  type EventsHarness,
} from '../../../services/events/test/support/events-harness';
import type { CliIo } from './cli-io';
import { runCli } from './run-cli';

// the CLI's main function in-process against the real services; the events process runs the
// reporting role only, so nothing drains the stream and the consumer lag is exact
let management: ManagementHarness;
let events: EventsHarness;

beforeAll(async () => {
  management = await startManagementHarness();
  events = await startEventsHarness({ EVENTS_ROLES: 'reporting', RETENTION_DAYS: '10' });
});
afterAll(async () => {
  await events?.stop();
  await management?.stop();
});

const files: Record<string, string> = {
  '/secrets/wrong': 'wrong-token-0123456789\n',
  '/secrets/right': `${TEST_ADMIN_TOKEN}\n`,
};

async function cli(argv: string[], opts: { stdin?: string; env?: Record<string, string> } = {}) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    env: { MANAGEMENT_URL: management.baseUrl, EVENTS_URL: events.baseUrl, ADMIN_TOKEN: TEST_ADMIN_TOKEN, ...opts.env },
    readStdin: async () => opts.stdin ?? '',
    readFile: async (path) => {
      if (path in files) return files[path]!;
      throw Object.assign(new Error('no such file'), { code: 'ENOENT' });
    },
    fetch: globalThis.fetch,
  };
  const code = await runCli(argv, io);
  return { code, stdout, stderr };
}

let counter = 0;
const email = () => `cli-${Date.now()}-${++counter}@example.com`;
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000);

describe('account create', () => {
  test('when an account is created with the password on stdin, then its token works and is shown once with a warning', async () => {
    const address = email();
    const r = await cli(
      [
        'account',
        'create',
        '--email',
        address,
        '--password-stdin',
        '--timezone',
        'Europe/Berlin',
        '--country',
        'Germany',
        '--country',
        'Austria',
      ],
      {
        stdin: 'correct horse battery\n',
      },
    );
    expect(r.code).toBe(0);
    const token = /api_token\s+(\S+)/.exec(r.stdout)?.[1];
    expect(r.stdout).toMatch(new RegExp(`email\\s+${address}`));
    expect(r.stdout).toMatch(/unique_id\s+\d+/);
    expect(r.stderr).toMatch(/shows it only once/);
    expect(r.stdout + r.stderr).not.toContain(TEST_ADMIN_TOKEN);
    // the trailing newline from stdin is not part of the password: the token authenticates
    expect((await management.request('GET', '/api/v3/user/', { token })).status).toBe(200);
  });

  test('when --json is given, then stdout is exactly the created user as JSON', async () => {
    const address = email();
    const r = await cli(['--json', 'account', 'create', '--email', address, '--password', 'long enough password']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      user_name: address,
      email: address,
      unique_id: expect.stringMatching(/^\d+$/),
      api_token: expect.any(String),
    });
  });

  test('when the fields are invalid, then exit 1 with the message and every field detail', async () => {
    const r = await cli([
      'account',
      'create',
      '--email',
      'not-an-email',
      '--password',
      'short',
      '--country',
      'Atlantis',
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/error: 400 validation_error: invalid account/);
    for (const field of ['email', 'password', 'target_geography'])
      expect(r.stderr).toMatch(new RegExp(`\\n  ${field}[.\\d]*: `));
  });

  test('when the e-mail is taken, then exit 1 with the conflict; with --json the error shape is on stderr', async () => {
    const address = email();
    expect((await cli(['account', 'create', '--email', address, '--password', 'long enough password'])).code).toBe(0);
    const r = await cli(['account', 'create', '--email', address, '--password', 'long enough password', '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stderr)).toMatchObject({ status: 409, error: { code: 'conflict' } });
  });
});

describe('keys', () => {
  test('when a key is created, listed and revoked, then each step shows it and a second revoke is a 404', async () => {
    const owners = [newOwnerId(), newOwnerId()];
    const created = await cli(['keys', 'create', '--owner', owners[0]!, '--owner', owners[1]!, '--json']);
    expect(created.code).toBe(0);
    const key = JSON.parse(created.stdout);
    expect(key).toEqual({ id: expect.any(String), api_key: expect.stringMatching(/^ek_/), owner_ids: owners });
    expect(created.stderr).toMatch(/shown only this once/);

    const listed = await cli(['keys', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^ID\s+CREATED \(UTC\)\s+OWNER IDS\n/);
    expect(listed.stdout).toMatch(
      new RegExp(`${key.id}\\s+\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}\\s+${owners.join(',')}`),
    );
    expect(listed.stdout).not.toContain(key.api_key);
    const asJson = JSON.parse((await cli(['keys', 'list', '--json'])).stdout);
    expect(asJson).toContainEqual({ id: key.id, owner_ids: owners, created: expect.any(String) });

    const revoked = await cli(['keys', 'revoke', key.id]);
    expect(revoked).toMatchObject({ code: 0, stdout: `API key ${key.id} revoked.\n` });
    expect((await cli(['keys', 'list'])).stdout).not.toContain(key.id);
    const again = await cli(['keys', 'revoke', key.id]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/error: 404 not_found: no such API key/);
  });

  test('when a human create is run, then the secret is printed once on stdout and the warning on stderr', async () => {
    const r = await cli(['keys', 'create', '--owner', newOwnerId()]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^API key created\.\nid\s+\S+\nowner_ids\s+\d+\napi_key\s+ek_\S+\n$/);
    expect(r.stderr).toMatch(/shown only this once/);
  });

  test('when an owner id is not digits, then exit 1 naming the field', async () => {
    const r = await cli(['keys', 'create', '--owner', 'abc']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/400 validation_error: .*\n {2}owner_ids\.0: /);
  });

  test('when the token file holds a wrong token, then exit 1 with 401 and a hint, and no token is printed', async () => {
    const r = await cli(['keys', 'list', '--admin-token-file', '/secrets/wrong'], { env: { ADMIN_TOKEN: '' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/401 unauthorized: operator token required\nhint:/);
    expect(r.stderr).not.toContain('wrong-token');
    expect(
      (await cli(['keys', 'list', '--admin-token-file', '/secrets/right'], { env: { ADMIN_TOKEN: '' } })).code,
    ).toBe(0);
  });
});

describe('pipeline status', () => {
  test('when events are published and not yet consumed, then the consumer lag shows them, in the table and in JSON', async () => {
    const jsm = await events.js.jetstreamManager();
    await jsm.consumers.add(events.config.EVENTS_STREAM, writerConsumerConfig(events.config));
    const owner = newOwnerId();
    for (let i = 0; i < 4; i++) await events.publishEvent({ owner_id: owner });
    await events.js.publish(events.config.EVENTS_DEAD_LETTER_SUBJECT, 'poison');

    const human = await cli(['pipeline', 'status']);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(`Stream ${events.config.EVENTS_STREAM}`);
    expect(human.stdout).toMatch(/lag \(not yet delivered\)\s+4\n/);
    expect(human.stdout).toMatch(new RegExp(`Dead letters ${events.config.EVENTS_STREAM}_DLQ\\n\\s+messages\\s+1 `));

    const json = await cli(['pipeline', 'status', '--json']);
    const view = JSON.parse(json.stdout);
    expect(view.consumer).toMatchObject({ name: events.config.CONSUMER_DURABLE, num_pending: 4, num_ack_pending: 0 });
    expect(view.stream).toMatchObject({ messages: 4, last_seq: 4 });
    expect(view.dead_letters.messages).toBe(1);
  });
});

describe('buckets drop-expired', () => {
  test('when a bucket is past retention, then a dry run lists it and keeps it, and a real run drops it', async () => {
    const old = bucketName(events.config.BUCKET_PREFIX, daysAgo(40));
    const fresh = bucketName(events.config.BUCKET_PREFIX, daysAgo(1));
    for (const name of [old, fresh]) await events.db.collection(name).insertOne({ marker: name });
    const names = async () => (await events.db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);

    const dry = await cli(['buckets', 'drop-expired', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toBe(
      `Would drop 1 expired day bucket (dry run: nothing was dropped; retention 10 days):\n  ${old}\n1 day bucket kept.\n`,
    );
    expect(await names()).toContain(old);

    const run = await cli(['buckets', 'drop-expired', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ dry_run: false, retention_days: 10, dropped: [old], kept: 1 });
    expect(await names()).not.toContain(old);
    expect(await names()).toContain(fresh);
  });
});

describe('tokens rekey', () => {
  test('when run, then every token is on the current keys and the counts are shown, as text and as JSON', async () => {
    await management.createAccount();
    const text = await cli(['tokens', 'rekey']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/api tokens? brought to the current keys; 0 remaining/);
    const json = await cli(['--json', 'tokens', 'rekey']);
    expect(JSON.parse(json.stdout)).toEqual({ rekeyed: 0, unreadable: 0, remaining: 0 });
  });
});

describe('registry reconcile', () => {
  test('when run, then the corrections are counted, as text and as JSON', async () => {
    const text = await cli(['registry', 'reconcile']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      /^(The registries already matched the users and campaigns collections\.|Corrected \d+ owner registry keys? and \d+ campaign registry keys?\.)\n$/,
    );
    const json = await cli(['--json', 'registry', 'reconcile']);
    expect(JSON.parse(json.stdout)).toEqual({ corrections: 0, campaign_corrections: 0 });
  });
});

describe('rollups', () => {
  test('when days are rebuilt, then their hours are marked and status shows them dirty; a day past raw retention or a bad day is refused', async () => {
    const day = daysAgo(2).toISOString().slice(0, 10);
    const run = await cli(['rollups', 'rebuild', '--from', day, '--to', day, '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ from: day, to: day, hours: 24 });

    const status = await cli(['rollups', 'status']);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(
      'Dirty units (answered from smaller units or raw events until rebuilt): 1h 24, 4h 6, 1d 1',
    );
    expect(status.stdout).toContain(`Oldest dirty hour: ${day}T00:00:00.000Z`);

    const old = daysAgo(40).toISOString().slice(0, 10);
    const refused = await cli(['rollups', 'rebuild', '--from', old, '--to', day]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('have no raw events any more');
    const bad = await cli(['rollups', 'rebuild', '--from', '2026-02-30', '--to', day]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('from');
  });
});

describe('failures', () => {
  test('when the service is not reachable, then exit 1 naming the service and address', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const r = await cli(['pipeline', 'status', '--events-url', url]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`campaign-events-admin: error: cannot reach the events service at ${url} (ECONNREFUSED)\n`);
  });

  test('when the command line is wrong, then exit 2 and no request is made', async () => {
    const before = JSON.parse((await cli(['keys', 'list', '--json'])).stdout).length;
    expect((await cli(['keys', 'create', '--owner'])).code).toBe(2);
    expect((await cli(['keys', 'create'])).code).toBe(2);
    expect(JSON.parse((await cli(['keys', 'list', '--json'])).stdout)).toHaveLength(before);
  });
});
