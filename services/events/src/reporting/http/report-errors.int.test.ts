import { newOwnerId, startReportingHarness, type ReportingHarness } from '../../../test/support/reporting-harness';

let h: ReportingHarness;
let apiKey: string;
const owner = newOwnerId();

beforeAll(async () => {
  h = await startReportingHarness();
  apiKey = (await h.createKey([owner])).api_key;
  await h.insertEvents([{ owner_id: owner, name: 'click', created: new Date('2026-11-19T12:00:00Z') }]);
});
afterAll(async () => {
  await h.stop();
});

const fieldsOf = (body: { error?: { details?: Array<{ field: string }> } }) =>
  (body.error?.details ?? []).map((d) => d.field);

describe('report authentication', () => {
  test.each([
    ['no api_key', '/api/v1/events/'],
    ['an empty api_key', '/api/v1/events/?api_key='],
    ['a well-formed key nobody issued', `/api/v1/events/?api_key=ek_${'A'.repeat(43)}`],
    ['a malformed key', '/api/v1/events/?api_key=%7B%22%24gt%22%3A%22%22%7D'],
    ['the key twice', null],
  ])('when the request has %s, then 401 with the error shape', async (_what, path) => {
    const res = await h.request('POST', path ?? `/api/v1/events/?api_key=${apiKey}&api_key=${apiKey}`, {
      body: { owner_id: owner },
    });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });
  });

  test('when the key is sent in a header instead, then 401 (the key goes in the query parameter)', async () => {
    const res = await h.request('POST', '/api/v1/events/', {
      body: { owner_id: owner },
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(res.status).toBe(401);
  });

  test('when the path has no trailing slash, then it works the same', async () => {
    const res = await h.request('POST', `/api/v1/events?api_key=${apiKey}`, { body: { owner_id: owner } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([{ name: 'click', value: 1 }]);
  });

  test('when a report runs, then the log line shows the path with the key redacted', async () => {
    await h.report(apiKey, { owner_id: owner });
    const logs = h.logLines.join('\n');
    expect(logs).toContain('api_key=[redacted]');
    expect(logs).not.toContain(apiKey);
  });
});

describe('report input errors', () => {
  test.each([
    ['no owner_id', {}, 'owner_id'],
    ['owner_id as a number', { owner_id: Number(owner) }, 'owner_id'],
    ['owner_id as an operator', { owner_id: { $gt: '' } }, 'owner_id'],
    ['owner_id as a list', { owner_id: [owner] }, 'owner_id'],
    ['url as an operator', { owner_id: owner, url: { $regex: '.*' } }, 'url'],
    ['url as a number', { owner_id: owner, url: 1 }, 'url'],
    ['url list holding an object', { owner_id: owner, url: ['u', { $ne: 1 }] }, 'url.1'],
    ['empty url list', { owner_id: owner, url: [] }, 'url'],
    ['content_id as a boolean', { owner_id: owner, content_id: true }, 'content_id'],
    ['name as null', { owner_id: owner, name: null }, 'name'],
    ['empty name', { owner_id: owner, name: '' }, 'name'],
    ['unknown device_type', { owner_id: owner, device_type: 'watch' }, 'device_type'],
    ['device_type list with an unknown value', { owner_id: owner, device_type: ['mobile', 'fridge'] }, 'device_type.1'],
    ['group_by name', { owner_id: owner, group_by: 'name' }, 'group_by.0'],
    ['group_by unknown in a list', { owner_id: owner, group_by: ['url', 'owner_id'] }, 'group_by.1'],
    ['group_by as an object', { owner_id: owner, group_by: { url: 1 } }, 'group_by'],
    ['metadata with an empty key', { owner_id: owner, metadata: 'a,' }, 'metadata.1'],
    ['metadata key too long', { owner_id: owner, metadata: 'k'.repeat(65) }, 'metadata.0'],
    ['metadata as an object', { owner_id: owner, metadata: { $gt: '' } }, 'metadata'],
    ['created__gte not a date', { owner_id: owner, created__gte: 'last week' }, 'created__gte'],
    ['created__lte impossible', { owner_id: owner, created__lte: '2026-02-30 10:00:00' }, 'created__lte'],
    ['created__gte as epoch number', { owner_id: owner, created__gte: 1763553600 }, 'created__gte'],
    ['created__gte as an operator', { owner_id: owner, created__gte: { $gt: '' } }, 'created__gte'],
    [
      'gte after lte',
      { owner_id: owner, created__gte: '2026-11-19 12:00:01', created__lte: '2026-11-19 12:00:00' },
      'created__lte',
    ],
    [
      'a range over REPORT_MAX_RANGE_DAYS',
      { owner_id: owner, created__gte: '2020-01-01 00:00:00', created__lte: '2026-01-01 00:00:00' },
      'created__gte',
    ],
    ['an unknown field', { owner_id: owner, owner: owner }, 'owner'],
    ['an operator field', { owner_id: owner, $where: 'sleep(1000)' }, '$where'],
    ['a __proto__ field', JSON.parse(`{"owner_id":"${owner}","__proto__":{"x":1}}`), '__proto__'],
  ])('when the body has %s, then 400 naming the field', async (_what, body, field) => {
    const res = await h.report(apiKey, body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(fieldsOf(res.body)).toContain(field);
  });

  test('when the JSON is malformed, then 400 naming the body', async () => {
    const res = await h.request('POST', `/api/v1/events/?api_key=${apiKey}`, {
      body: '{"owner_id": ',
      contentType: 'application/json',
    });
    expect(res.status).toBe(400);
    expect(fieldsOf(res.body)).toEqual(['body']);
  });

  test('when there is no body at all, then 400 naming owner_id', async () => {
    const res = await h.request('POST', `/api/v1/events/?api_key=${apiKey}`);
    expect(res.status).toBe(400);
    expect(fieldsOf(res.body)).toEqual(['owner_id']);
  });

  test.each([
    ['text/plain', 'owner_id=1'],
    ['application/x-www-form-urlencoded', `owner_id=${owner}`],
    ['application/xml', '<owner_id/>'],
  ])('when the body is %s, then 415', async (contentType, body) => {
    const res = await h.request('POST', `/api/v1/events/?api_key=${apiKey}`, { body, contentType });
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe('unsupported_media_type');
  });

  test('when the body exceeds BODY_LIMIT, then 413', async () => {
    const res = await h.report(apiKey, { owner_id: owner, url: 'x'.repeat(40 * 1024) });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('payload_too_large');
  });

  test('when the query string carries more than api_key, then 400 naming the parameter', async () => {
    const res = await h.request('POST', `/api/v1/events/?api_key=${apiKey}&owner_id=${owner}`, {
      body: { owner_id: owner },
    });
    expect(res.status).toBe(400);
    expect(fieldsOf(res.body)).toEqual(['owner_id']);
  });

  test('when another method is used, then 404 with the error shape', async () => {
    const res = await h.request('GET', `/api/v1/events/?api_key=${apiKey}`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });

  test('when odd bodies are thrown at it, then every answer is a 4xx, never a 5xx', async () => {
    const bodies = [
      'null',
      '[]',
      '"x"',
      '1',
      '{"owner_id":{"$ne":null}}',
      `{"owner_id":"${owner}","url":[[["deep"]]]}`,
      `{"owner_id":"${owner}","metadata":[null]}`,
      `{"owner_id":"${owner}","created__gte":"2026-11-19 12:00:00","created__lte":{"$date":"x"}}`,
      `{"owner_id":"${owner}","name":"\u0000"}`,
      '{"constructor":{"prototype":{}}}',
      `{"owner_id":"${owner}","group_by":"url,,"}`,
      `{"owner_id":"${'9'.repeat(40)}"}`,
      `{"owner_id":"${owner}","metadata":"${'a,'.repeat(30)}a"}`,
    ];
    for (const body of bodies) {
      const res = await h.request('POST', `/api/v1/events/?api_key=${apiKey}`, {
        body,
        contentType: 'application/json',
      });
      expect({ body, status: res.status < 500 && res.status >= 400 }).toEqual({ body, status: true });
    }
  });
});

describe('report metrics', () => {
  test('when reports were answered, then /metrics counts them by outcome and has the latency histogram', async () => {
    const text = (await h.request('GET', '/metrics')).body as string;
    expect(text).toMatch(/events_reports_total\{outcome="ok"[^}]*\} [1-9]/);
    expect(text).toMatch(/events_reports_total\{outcome="unauthorized"[^}]*\} [1-9]/);
    expect(text).toMatch(/events_reports_total\{outcome="invalid"[^}]*\} [1-9]/);
    expect(text).toContain('events_report_duration_seconds_bucket');
    expect(text).toContain('events_report_buckets_bucket');
  });
});
