import { startManagementHarness, type ManagementHarness } from '../../../management/test/support/management-harness';
import { uniqueName } from '@cm/testkit';
import { BROWSER_UA, TEST_ADMIN_TOKEN, startEventsHarness, type EventsHarness } from '../support/events-harness';

// Every JSON answer of both services carries `X-Content-Type-Options: nosniff`, so a browser never
// second-guesses its type: error bodies echo what the caller sent (parameter names, field names),
// and sniffed as HTML they would be a reflection vector. Each kind of answer is written in one
// place (the Express skeleton and its error middleware, the pixel's node:http answers, the
// answers of the start-up server and of the HTTP parser's refusals): one call per kind below.
let management: ManagementHarness;
let events: EventsHarness;

beforeAll(async () => {
  const bucket = uniqueName('owners_nosniff');
  management = await startManagementHarness({ OWNER_REGISTRY_BUCKET: bucket });
  events = await startEventsHarness({ OWNER_REGISTRY_BUCKET: bucket });
});
afterAll(async () => {
  await events.stop();
  await management.stop();
});

interface Call {
  what: string;
  path: string;
  init?: RequestInit;
  status: number;
}

const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Calls each endpoint and lists every JSON answer without nosniff (and every unexpected status). */
async function problemsOf(baseUrl: string, calls: Call[]): Promise<string[]> {
  const problems: string[] = [];
  for (const call of calls) {
    const res = await fetch(`${baseUrl}${call.path}`, { redirect: 'manual', ...call.init });
    const type = res.headers.get('content-type') ?? '';
    await res.arrayBuffer();
    if (res.status !== call.status) problems.push(`${call.what}: status ${res.status}, expected ${call.status}`);
    if (!type.startsWith('application/json')) problems.push(`${call.what}: content type ${type}, not JSON`);
    if (res.headers.get('x-content-type-options') !== 'nosniff') problems.push(`${call.what}: no nosniff`);
  }
  return problems;
}

/** Answers of the HTTP parser (before any handler): an over-long URL and over-long headers. */
const parserRefusals: Call[] = [
  { what: 'URL over 16 KB', path: `/v1/v.gif?owner_id=1&name=x&pad=${'a'.repeat(20_000)}`, status: 414 },
  { what: 'headers over 16 KB', path: '/healthz', init: { headers: { 'x-pad': 'b'.repeat(20_000) } }, status: 431 },
];

describe('X-Content-Type-Options on JSON answers', () => {
  test('when the management API answers with success or an error, then every JSON answer says nosniff', async () => {
    const account = await management.createAccount();
    const problems = await problemsOf(management.baseUrl, [
      { what: 'health', path: '/healthz', status: 200 },
      { what: 'own user', path: '/api/v3/user/me/', init: { headers: bearer(account.api_token) }, status: 200 },
      { what: 'campaign list', path: '/api/v3/campaign/', init: { headers: bearer(account.api_token) }, status: 200 },
      {
        what: 'new account',
        path: '/admin/v1/accounts',
        init: json(
          { email: `nosniff-${Date.now()}@example.com`, password: 'correct horse battery' },
          bearer(TEST_ADMIN_TOKEN),
        ),
        status: 201,
      },
      { what: 'no token', path: '/api/v3/user/me/', status: 401 },
      {
        what: 'invalid campaign',
        path: '/api/v3/campaign/',
        init: json({ name: '<script>alert(1)</script>', $where: '1' }, bearer(account.api_token)),
        status: 400,
      },
      {
        what: 'malformed JSON',
        path: '/api/v3/user/',
        init: json('{"email": ', bearer(account.api_token)),
        status: 400,
      },
      { what: 'unknown path', path: '/v3/<img src=x>', status: 404 },
      ...parserRefusals,
    ]);
    expect(problems).toEqual([]);
  });

  test('when the events API answers with success or an error, pixel errors included, then every JSON answer says nosniff', async () => {
    const owner = await events.registerOwner(undefined, ['shop.example.com']);
    const created = await fetch(
      `${events.baseUrl}/admin/v1/api-keys`,
      json({ owner_ids: [owner] }, bearer(TEST_ADMIN_TOKEN)),
    );
    const { api_key: key } = (await created.json()) as { api_key: string };
    const report = `/api/v1/events/?api_key=${key}`;
    const ua = { 'user-agent': BROWSER_UA };
    const problems = await problemsOf(events.baseUrl, [
      { what: 'health', path: '/healthz', status: 200 },
      { what: 'api key list', path: '/admin/v1/api-keys', init: { headers: bearer(TEST_ADMIN_TOKEN) }, status: 200 },
      { what: 'report', path: report, init: json({ owner_id: owner }), status: 200 },
      { what: 'openapi document', path: '/docs/openapi.json', status: 200 },
      // the pixel's 400 echoes the parameter names it refuses
      {
        what: 'pixel 400',
        path: `/v1/v.gif?owner_id=${owner}&name=x&engaged_ms=-1&%3Cscript%3E=1&%3Cscript%3E=2`,
        init: { headers: ua },
        status: 400,
      },
      {
        what: 'pixel refused redirect',
        path: `/v1/v.gif?owner_id=${owner}&name=click&r=${encodeURIComponent('javascript:alert(1)')}`,
        status: 400,
      },
      { what: 'pixel method', path: '/v1/v.gif', init: { method: 'PUT' }, status: 405 },
      { what: 'pixel body type', path: '/v1/v.gif', init: json({ owner_id: owner, name: 'x' }), status: 415 },
      { what: 'report invalid', path: report, init: json({ owner_id: owner, group_by: '$where' }), status: 400 },
      {
        what: 'report unknown key',
        path: '/api/v1/events/?api_key=ek_unknown',
        init: json({ owner_id: owner }),
        status: 401,
      },
      { what: 'report out of scope', path: report, init: json({ owner_id: '42' }), status: 403 },
      { what: 'unknown path', path: '/api/v1/<img src=x>', status: 404 },
      ...parserRefusals,
    ]);
    expect(problems).toEqual([]);
  });
});
