import { isRedirectHostAllowed } from '@cm/contracts';
import { startManagementHarness, type ManagementHarness } from '../../test/support/management-harness';

let h: ManagementHarness;
beforeAll(async () => {
  h = await startManagementHarness();
});
afterAll(async () => {
  await h.stop();
});

const PATH = '/api/v3/redirect-hosts/';
const put = (token: string, body: unknown, contentType?: string) =>
  h.request('PUT', PATH, { token, body, contentType });
const get = (token: string) => h.request('GET', PATH, { token });

describe('redirect hosts', () => {
  test('when nothing is set, then the lists are empty', async () => {
    const owner = await h.createAccount();
    const res = await get(owner.api_token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ hosts: [], content_hosts: [] });
  });

  test('when the list is replaced, then it is normalised, kept, announced in the owner record with the content hosts, and readable', async () => {
    const owner = await h.createAccount();
    const campaign = (
      await h.request('POST', '/api/v3/campaign/', {
        token: owner.api_token,
        body: { name: 'R', start_date: '2026-01-01', end_date: '2026-02-01', category: 'Other' },
      })
    ).body;
    await h.request('POST', `/api/v3/campaign/${campaign.token}/content/`, {
      token: owner.api_token,
      body: { url: 'https://content.example/page' },
    });
    const before = (await h.ownerRecord(owner.unique_id))!.revision;
    const res = await put(owner.api_token, {
      hosts: ['Shop.Example.', '*.CDN.example', 'bücher.example', 'shop.example'],
    });
    expect(res.status).toBe(200);
    const expected = {
      hosts: ['shop.example', '*.cdn.example', 'xn--bcher-kva.example'],
      content_hosts: ['content.example'],
    };
    expect(res.body).toEqual(expected);
    expect((await get(owner.api_token)).body).toEqual(expected);
    expect(await h.ownerRecord(owner.unique_id)).toMatchObject({
      revision: before + 1,
      redirect_hosts: ['shop.example', '*.cdn.example', 'xn--bcher-kva.example', 'content.example'],
    });
    // PUT and trailing slash optional
    expect(
      (await h.request('PUT', '/api/v3/redirect-hosts', { token: owner.api_token, body: { hosts: [] } })).body,
    ).toEqual({ hosts: [], content_hosts: ['content.example'] });
    expect((await h.ownerRecord(owner.unique_id))?.redirect_hosts).toEqual(['content.example']);
  });

  test('when the record is read with the contract the pixel uses, then exactly the content hosts, the listed hosts and subdomains of a *. entry are allowed', async () => {
    const owner = await h.createAccount();
    const campaign = (
      await h.request('POST', '/api/v3/campaign/', {
        token: owner.api_token,
        body: { name: 'P', start_date: '2026-01-01', end_date: '2026-02-01', category: 'Other' },
      })
    ).body;
    await h.request('POST', `/api/v3/campaign/${campaign.token}/content/`, {
      token: owner.api_token,
      body: { url: 'https://News.Example:8443/story' },
    });
    await put(owner.api_token, { hosts: ['Shop.Example', '*.cdn.example', 'bücher.example'] });
    const hosts = (await h.ownerRecord(owner.unique_id))!.redirect_hosts;
    const allowed = (url: string) => isRedirectHostAllowed(hosts, new URL(url).hostname);
    for (const url of [
      'https://news.example/other',
      'http://shop.example/cart',
      'https://img.cdn.example/a.png',
      'https://a.b.cdn.example/',
      'https://bücher.example/buch',
    ])
      expect([url, allowed(url)]).toEqual([url, true]);
    for (const url of [
      'https://cdn.example/',
      'https://www.shop.example/',
      'https://evil.example/',
      'https://shop.example.evil.net/',
      'https://news.example.evil.net/',
    ])
      expect([url, allowed(url)]).toEqual([url, false]);
  });

  test('when a form body repeats hosts, then it is a list; one value is a list of one', async () => {
    const owner = await h.createAccount();
    expect(
      (await put(owner.api_token, 'hosts=a.example&hosts=b.example', 'application/x-www-form-urlencoded')).body.hosts,
    ).toEqual(['a.example', 'b.example']);
    expect((await put(owner.api_token, 'hosts=c.example', 'application/x-www-form-urlencoded')).body.hosts).toEqual([
      'c.example',
    ]);
  });

  test("when a sub-user sets its list, then it is its own: the owner's list and record are untouched", async () => {
    const owner = await h.createAccount();
    const sub = await h.createSubUser(owner.api_token);
    await put(owner.api_token, { hosts: ['owner.example'] });
    expect((await put(sub.api_token, { hosts: ['sub.example'] })).status).toBe(200);
    expect((await get(owner.api_token)).body.hosts).toEqual(['owner.example']);
    expect((await h.ownerRecord(sub.unique_id))?.redirect_hosts).toEqual(['sub.example']);
    expect((await h.ownerRecord(owner.unique_id))?.redirect_hosts).toEqual(['owner.example']);
  });

  test.each([
    ['no hosts field', {}],
    ['a wrong type', { hosts: 7 }],
    ['an object entry', { hosts: [{ host: 'a.example' }] }],
    ['an operator object', { hosts: { $push: 'evil.example' } }],
    ['an operator key', { $set: { redirect_hosts: ['evil.example'] } }],
    ['an unknown field', { hosts: ['a.example'], redirect_hosts: ['b.example'] }],
    ['a URL entry', { hosts: ['https://evil.example/'] }],
    ['a host with a port', { hosts: ['evil.example:8080'] }],
    ['an oversized entry', { hosts: [`${'a'.repeat(500)}.example`] }],
    ['a wildcard over a public suffix', { hosts: ['*.com'] }],
    ['a wildcard over a private-section public suffix', { hosts: ['ok.example', '*.github.io'] }],
    ['an uppercase wildcard over a public suffix with a trailing dot', { hosts: ['*.CO.UK.'] }],
    ['a bare public suffix', { hosts: ['co.uk'] }],
    ['101 entries', { hosts: Array.from({ length: 101 }, (_, i) => `h${i}.example`) }],
  ])('when the body has %s, then 400 naming hosts and nothing changes', async (_name, body) => {
    const owner = await h.createAccount();
    await put(owner.api_token, { hosts: ['kept.example'] });
    const revision = (await h.ownerRecord(owner.unique_id))!.revision;
    const res = await put(owner.api_token, body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details.some((d: { field: string }) => /^(hosts|redirect_hosts|\$set)/.test(d.field))).toBe(
      true,
    );
    expect((await get(owner.api_token)).body.hosts).toEqual(['kept.example']);
    expect((await h.ownerRecord(owner.unique_id))?.revision).toBe(revision);
  });

  test('when the body is malformed JSON or another media type, then 400 / 415', async () => {
    const owner = await h.createAccount();
    expect((await put(owner.api_token, '{"hosts": [', 'application/json')).status).toBe(400);
    expect((await put(owner.api_token, '<hosts/>', 'application/xml')).status).toBe(415);
  });
});
