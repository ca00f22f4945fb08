import { startManagementHarness, type ManagementHarness } from '../../test/support/management-harness';

let h: ManagementHarness;
beforeAll(async () => {
  h = await startManagementHarness();
});
afterAll(async () => {
  await h.stop();
});

const CAMPAIGN = { start_date: '2026-01-01', end_date: '2026-02-01', category: 'Other' };

async function allPages(token: string, path: string, limit: number): Promise<{ pages: number; items: unknown[] }> {
  const items: unknown[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res: { status: number; body: { items: unknown[]; next_cursor: string | null } } = await h.request(
      'GET',
      `${path}?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      { token },
    );
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['items', 'next_cursor']);
    items.push(...res.body.items);
    cursor = res.body.next_cursor;
    pages++;
  } while (cursor);
  return { pages, items };
}

describe('opt-in pagination', () => {
  test('when campaigns are listed with limit, then the pages together are the plain list in the same order', async () => {
    const owner = await h.createAccount();
    for (let i = 0; i < 5; i++)
      await h.request('POST', '/api/v3/campaign/', { token: owner.api_token, body: { ...CAMPAIGN, name: `C${i}` } });
    const plain = (await h.request('GET', '/api/v3/campaign/', { token: owner.api_token })).body;
    expect(plain).toHaveLength(5);
    expect(await allPages(owner.api_token, '/api/v3/campaign/', 2)).toEqual({ pages: 3, items: plain });
    expect(await allPages(owner.api_token, '/api/v3/campaign/', 5)).toEqual({ pages: 1, items: plain });
    expect(
      (await h.request('GET', '/api/v3/campaign/?limit=200', { token: (await h.createAccount()).api_token })).body,
    ).toEqual({ items: [], next_cursor: null });
  });

  test('when sub-users are listed with limit, then the pages together are the plain list, tokens included', async () => {
    const owner = await h.createAccount();
    for (let i = 0; i < 3; i++) await h.createSubUser(owner.api_token);
    const plain = (await h.request('GET', '/api/v3/user/', { token: owner.api_token })).body;
    expect(await allPages(owner.api_token, '/api/v3/user/', 1)).toEqual({ pages: 3, items: plain });
    const sub = plain[0] as { api_token: string };
    expect((await h.request('GET', '/api/v3/user/?limit=1', { token: sub.api_token })).status).toBe(403);
  });

  test("when a cursor is used by another user, then it only positions that user's own list", async () => {
    const a = await h.createAccount();
    const b = await h.createAccount();
    for (const owner of [a, b])
      for (let i = 0; i < 2; i++)
        await h.request('POST', '/api/v3/campaign/', {
          token: owner.api_token,
          body: { ...CAMPAIGN, name: `${owner.unique_id}-${i}` },
        });
    const cursor = (await h.request('GET', '/api/v3/campaign/?limit=1', { token: a.api_token })).body.next_cursor;
    const res = await h.request('GET', `/api/v3/campaign/?limit=10&cursor=${cursor}`, { token: b.api_token });
    expect(res.status).toBe(200);
    for (const item of res.body.items) expect(item.name.startsWith(b.unique_id)).toBe(true);
  });

  test('when unknown query parameters come along, then they are ignored as before', async () => {
    const owner = await h.createAccount();
    expect((await h.request('GET', '/api/v3/campaign/?_=123', { token: owner.api_token })).body).toEqual([]);
    expect((await h.request('GET', '/api/v3/campaign/?limit[$gt]=0', { token: owner.api_token })).body).toEqual([]);
  });

  test.each([
    ['limit=0'],
    ['limit=201'],
    ['limit=abc'],
    ['limit=1&limit=2'],
    ['cursor=abc.def'],
    ['limit=2&cursor=tampered.cursor'],
    [`limit=2&cursor=${'x'.repeat(600)}`],
    ['limit=2&cursor[$ne]=x&cursor=a.b'],
  ])('when the query is %s, then 400 validation_error', async (query) => {
    const owner = await h.createAccount();
    for (const path of ['/api/v3/campaign/', '/api/v3/user/']) {
      const res = await h.request('GET', `${path}?${query}`, { token: owner.api_token });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    }
  });

  test('when a users cursor is given to the campaigns list, then 400 naming cursor', async () => {
    const owner = await h.createAccount();
    await h.createSubUser(owner.api_token);
    await h.createSubUser(owner.api_token);
    const cursor = (await h.request('GET', '/api/v3/user/?limit=1', { token: owner.api_token })).body.next_cursor;
    const res = await h.request('GET', `/api/v3/campaign/?limit=1&cursor=${cursor}`, { token: owner.api_token });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field: 'cursor', message: expect.any(String) }]);
  });
});
