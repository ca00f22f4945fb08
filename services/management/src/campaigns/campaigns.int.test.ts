import { startManagementHarness, type ManagementHarness } from '../../test/support/management-harness';

let h: ManagementHarness;
/** The service's clock runs this far ahead of the wall clock: a test moves it instead of waiting. */
let clockAhead = 0;
const passSeconds = (s: number) => (clockAhead += s * 1000);

beforeAll(async () => {
  h = await startManagementHarness({}, { now: () => new Date(Date.now() + clockAhead) });
});
afterAll(async () => {
  await h.stop();
});

const valid = { name: 'Spring sale', start_date: '2024-03-01', end_date: '2024-03-31', category: 'Food / Drink' };
const LIST_FIELDS = [
  'brand',
  'category',
  'end_date',
  'last_modified',
  'name',
  'objective',
  'reach',
  'start_date',
  'target_geography',
  'token',
];
const DATETIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

async function createCampaign(token: string, body: object = valid) {
  const res = await h.request('POST', '/api/v3/campaign/', { token, body });
  if (res.status !== 200) throw new Error(`create campaign: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

describe('create and list campaigns', () => {
  test('when a campaign is created with only the required fields, then 200 with the documented campaign fields and unset optionals as null / []', async () => {
    const owner = await h.createAccount();
    // the service's clock, to the second (last_modified has no milliseconds)
    const sent = Math.floor((Date.now() + clockAhead) / 1000) * 1000;
    const res = await h.request('POST', '/api/v3/campaign/', { token: owner.api_token, body: valid });
    const answered = Date.now() + clockAhead;
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(LIST_FIELDS);
    expect(res.body).toEqual({
      ...valid,
      token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      brand: null,
      reach: null,
      objective: null,
      target_geography: [],
      last_modified: expect.stringMatching(DATETIME),
    });
    // the time of the create: between the request being sent and answered
    expect(Date.parse(`${res.body.last_modified}Z`)).toBeGreaterThanOrEqual(sent);
    expect(Date.parse(`${res.body.last_modified}Z`)).toBeLessThanOrEqual(answered);
  });

  test('when a campaign is created with every field, then they are returned, a single country as a list', async () => {
    const owner = await h.createAccount();
    const body = {
      ...valid,
      brand: 'Acme',
      reach: 5000,
      target_geography: 'germany',
      objective: 'Brand Lift',
      category: 'Health & Fitness',
    };
    const created = await createCampaign(owner.api_token, body);
    expect(created).toMatchObject({
      brand: 'Acme',
      reach: 5000,
      target_geography: ['Germany'],
      objective: 'Brand Lift',
      category: 'Health & Fitness',
    });
  });

  test("when campaigns are listed, then only the caller's own come back, in creation order, without trailing slash too", async () => {
    const owner = await h.createAccount();
    const other = await h.createAccount();
    const a = await createCampaign(owner.api_token, { ...valid, name: 'A' });
    const b = await createCampaign(owner.api_token, { ...valid, name: 'B' });
    await createCampaign(other.api_token, { ...valid, name: 'not mine' });
    for (const path of ['/api/v3/campaign/', '/api/v3/campaign']) {
      const list = await h.request('GET', path, { token: owner.api_token });
      expect(list.status).toBe(200);
      expect(list.body).toEqual([a, b]);
    }
  });

  test('when the body is form-encoded, then numbers and lists are converted like JSON', async () => {
    const owner = await h.createAccount();
    const form = new URLSearchParams({ ...valid, reach: '42', brand: '' });
    form.append('target_geography', 'France');
    form.append('target_geography', 'Spain');
    const res = await h.request('POST', '/api/v3/campaign', {
      token: owner.api_token,
      body: form.toString(),
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ reach: 42, brand: null, target_geography: ['France', 'Spain'] });
  });

  test.each([
    ['missing name', { ...valid, name: undefined }, 'name'],
    ['blank name', { ...valid, name: '   ' }, 'name'],
    ['oversized name', { ...valid, name: 'x'.repeat(201) }, 'name'],
    ['missing start_date', { ...valid, start_date: undefined }, 'start_date'],
    ['missing category', { ...valid, category: undefined }, 'category'],
    ['invalid date', { ...valid, end_date: '2023-02-29' }, 'end_date'],
    ['date with time', { ...valid, start_date: '2024-03-01T00:00:00Z' }, 'start_date'],
    ['date in another form', { ...valid, start_date: '03/01/2024' }, 'start_date'],
    ['start after end', { ...valid, start_date: '2024-04-01' }, 'start_date'],
    ['bad category', { ...valid, category: 'food / drink' }, 'category'],
    ['bad objective', { ...valid, objective: 'Sales' }, 'objective'],
    ['negative reach', { ...valid, reach: -1 }, 'reach'],
    ['fractional reach', { ...valid, reach: 1.5 }, 'reach'],
    ['reach as a string in JSON', { ...valid, reach: '100' }, 'reach'],
    ['unknown country', { ...valid, target_geography: ['Atlantis'] }, 'target_geography'],
    ['operator object', { ...valid, name: { $gt: '' } }, 'name'],
    ['unknown field', { ...valid, owner_id: '1' }, 'owner_id'],
    ['wrong type', { ...valid, category: ['Auto'] }, 'category'],
  ])('when creating with %s, then 400 naming the field and nothing is stored', async (_n, body, field) => {
    const owner = await h.createAccount();
    const res = await h.request('POST', '/api/v3/campaign/', { token: owner.api_token, body });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details.map((d: { field: string }) => d.field.split('.')[0])).toContain(field);
    expect((await h.request('GET', '/api/v3/campaign/', { token: owner.api_token })).body).toEqual([]);
  });

  test('when the body is malformed JSON or too large, then 400 / 413, never 5xx', async () => {
    const owner = await h.createAccount();
    expect(
      (
        await h.request('POST', '/api/v3/campaign/', {
          token: owner.api_token,
          body: '{"name":',
          contentType: 'application/json',
        })
      ).status,
    ).toBe(400);
    const huge = await h.request('POST', '/api/v3/campaign/', {
      token: owner.api_token,
      body: { ...valid, brand: 'x'.repeat(100_000) },
    });
    expect(huge.status).toBe(413);
  });
});

describe('edit campaigns', () => {
  test('when some fields are edited, then 200 with the documented edit fields, the rest unchanged and last_modified moved', async () => {
    const owner = await h.createAccount();
    const created = await createCampaign(owner.api_token, { ...valid, brand: 'Acme', reach: 10 });
    passSeconds(1.1);
    const res = await h.request('POST', `/api/v3/campaign/${created.token}/`, {
      token: owner.api_token,
      body: { end_date: '2024-04-30', objective: 'Reach', target_geography: ['Italy'] },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      token: created.token,
      start_date: valid.start_date,
      end_date: '2024-04-30',
      category: valid.category,
      brand: 'Acme',
      reach: 10,
      target_geography: ['Italy'],
      objective: 'Reach',
    });
    const [listed] = (await h.request('GET', '/api/v3/campaign', { token: owner.api_token })).body;
    expect(listed.name).toBe(valid.name);
    expect(listed.last_modified > created.last_modified).toBe(true);
  });

  test('when optional fields are set to null, then they are cleared', async () => {
    const owner = await h.createAccount();
    const created = await createCampaign(owner.api_token, {
      ...valid,
      brand: 'Acme',
      reach: 10,
      objective: 'Reach',
      target_geography: 'Italy',
    });
    const res = await h.request('POST', `/api/v3/campaign/${created.token}`, {
      token: owner.api_token,
      body: { brand: null, reach: null, objective: null, target_geography: null },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ brand: null, reach: null, objective: null, target_geography: [] });
  });

  test('when an edit would put start_date after the stored end_date, then 400 with details and nothing changes', async () => {
    const owner = await h.createAccount();
    const created = await createCampaign(owner.api_token);
    const res = await h.request('POST', `/api/v3/campaign/${created.token}/`, {
      token: owner.api_token,
      body: { start_date: '2024-05-01' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0]).toEqual({ field: 'start_date', message: expect.stringContaining('end_date') });
    const after = await h.request('GET', `/api/v3/campaign/${created.token}/`, { token: owner.api_token });
    expect(after.body.start_date).toBe(valid.start_date);
  });

  test('when an edit has no body or an empty object, then 200 with the current data and nothing changes, last_modified included', async () => {
    const owner = await h.createAccount();
    const created = await createCampaign(owner.api_token, { ...valid, brand: 'Acme' });
    passSeconds(1.1);
    const { name: _n, last_modified: _lm, ...editFields } = created;
    const noBody = await h.request('POST', `/api/v3/campaign/${created.token}/`, { token: owner.api_token });
    expect(noBody.status).toBe(200);
    expect(noBody.body).toEqual(editFields);
    const empty = await h.request('POST', `/api/v3/campaign/${created.token}/`, { token: owner.api_token, body: {} });
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual(editFields);
    expect((await h.request('GET', '/api/v3/campaign/', { token: owner.api_token })).body).toEqual([created]);
    expect(
      (await h.request('POST', '/api/v3/campaign/AAAAAAAAAAAAAAAAAAAAAA/', { token: owner.api_token })).status,
    ).toBe(404);
  });

  test.each([
    ['an unknown field', { token: 'mine' }],
    ['an invalid date', { end_date: '2024-02-30' }],
    ['a bad category', { category: 'Cars' }],
    ['an operator object', { brand: { $set: 'x' } }],
    ['an empty name', { name: '' }],
  ])('when editing with %s, then 400', async (_n, body) => {
    const owner = await h.createAccount();
    const created = await createCampaign(owner.api_token);
    const res = await h.request('POST', `/api/v3/campaign/${created.token}/`, { token: owner.api_token, body });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
  });
});

describe('read and delete campaigns', () => {
  test('when a campaign is read, then the documented read fields and an empty content list come back', async () => {
    const owner = await h.createAccount();
    const created = await createCampaign(owner.api_token);
    const res = await h.request('GET', `/api/v3/campaign/${created.token}`, { token: owner.api_token });
    expect(res.status).toBe(200);
    const { last_modified: _lm, ...withoutLastModified } = created;
    expect(res.body).toEqual({ ...withoutLastModified, content: [] });
  });

  test('when a campaign is deleted, then 204 with an empty body and it is gone', async () => {
    const owner = await h.createAccount();
    const created = await createCampaign(owner.api_token);
    const del = await h.request('DELETE', `/api/v3/campaign/${created.token}/`, { token: owner.api_token });
    expect(del.status).toBe(204);
    expect(del.body).toBeUndefined();
    expect((await h.request('GET', `/api/v3/campaign/${created.token}/`, { token: owner.api_token })).status).toBe(404);
    expect((await h.request('DELETE', `/api/v3/campaign/${created.token}/`, { token: owner.api_token })).status).toBe(
      404,
    );
    expect((await h.request('GET', '/api/v3/campaign/', { token: owner.api_token })).body).toEqual([]);
  });

  test('when a token is unknown or malformed, then 404 for read, edit and delete', async () => {
    const owner = await h.createAccount();
    for (const token of ['A'.repeat(43), 'not%20a%20token', 'x'.repeat(65)]) {
      expect((await h.request('GET', `/api/v3/campaign/${token}/`, { token: owner.api_token })).status).toBe(404);
      expect(
        (await h.request('POST', `/api/v3/campaign/${token}/`, { token: owner.api_token, body: { name: 'x' } })).status,
      ).toBe(404);
      expect((await h.request('DELETE', `/api/v3/campaign/${token}/`, { token: owner.api_token })).status).toBe(404);
    }
  });
});
