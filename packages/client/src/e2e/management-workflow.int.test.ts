import {
  TEST_ADMIN_TOKEN,
  startManagementHarness,
  type ManagementHarness,
} from '../../../../services/management/test/support/management-harness';
import { AdminClient } from '../admin-client';
import { ConflictError, ForbiddenError, NotFoundError, UnauthorizedError, ValidationError } from '../errors';
import { ManagementClient } from '../management-client';

// The client against the real management service (port 0, the test run's NATS and Mongo stand-in).
// Content URLs use the documentation range 192.0.2.0/24, which the title fetcher refuses offline.
let h: ManagementHarness;
beforeAll(async () => {
  h = await startManagementHarness();
});
afterAll(async () => {
  await h.stop();
});

const DATETIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const email = (who: string) => `${who}-${Date.now()}-${Math.floor(Math.random() * 1e6)}@example.com`;
const operator = () => new AdminClient({ managementUrl: h.baseUrl, adminToken: TEST_ADMIN_TOKEN });
const as = (apiToken: string) => new ManagementClient({ baseUrl: h.baseUrl, apiToken });
const SPRING = {
  name: 'Spring launch',
  start_date: '2026-03-01',
  end_date: '2026-05-31',
  category: 'Technology' as const,
};

describe('ManagementClient against the management service', () => {
  test('when an operator, an owner and a sub-user work through users, campaigns and content, then every call returns the documented shapes', async () => {
    const owner = await operator().createAccount({ email: email('owner'), password: 'correct horse battery' });
    expect(owner).toEqual({
      user_name: owner.email,
      email: owner.email,
      unique_id: expect.stringMatching(/^\d+$/),
      api_token: expect.any(String),
    });
    const mine = as(owner.api_token);

    const sub = await mine.createUser({
      email: email('analyst'),
      password: 'a long password',
      timezone: 'Europe/Berlin',
      target_geography: 'Germany',
    });
    expect(sub).toEqual({
      user_name: sub.email,
      email: sub.email,
      unique_id: expect.stringMatching(/^\d+$/),
      api_token: expect.any(String),
    });
    expect(await mine.listUsers()).toEqual([sub]);
    expect(await mine.editUser(sub.unique_id, { user_name: 'Analyst', timezone: 'America/New_York' })).toEqual({
      ...sub,
      user_name: 'Analyst',
    });

    const created = await mine.createCampaign({
      ...SPRING,
      brand: 'Acme',
      reach: 100000,
      target_geography: ['Germany'],
      objective: 'Reach',
    });
    expect(created).toEqual({
      ...SPRING,
      token: expect.any(String),
      brand: 'Acme',
      reach: 100000,
      target_geography: ['Germany'],
      objective: 'Reach',
      last_modified: expect.stringMatching(DATETIME),
    });
    expect(await mine.listCampaigns()).toEqual([created]);
    expect(await mine.listCampaignsPage({ limit: 1 })).toEqual({ items: [created], next_cursor: null });
    expect(await mine.listUsersPage({ limit: 5 })).toEqual({
      items: [{ ...sub, user_name: 'Analyst' }],
      next_cursor: null,
    });
    const edited = await mine.editCampaign(created.token, { end_date: '2026-06-30', reach: null });
    expect(edited).toEqual({
      token: created.token,
      start_date: SPRING.start_date,
      end_date: '2026-06-30',
      category: 'Technology',
      brand: 'Acme',
      reach: null,
      target_geography: ['Germany'],
      objective: 'Reach',
    });

    const item = await mine.addContent(created.token, {
      url: 'https://192.0.2.10/articles/spring',
      content_type: 'Article',
    });
    expect(await mine.setRedirectHosts(['Shop.Example', '*.cdn.example'])).toEqual({
      hosts: ['shop.example', '*.cdn.example'],
      content_hosts: ['192.0.2.10'],
    });
    expect(await mine.getRedirectHosts()).toEqual({
      hosts: ['shop.example', '*.cdn.example'],
      content_hosts: ['192.0.2.10'],
    });
    await expect(mine.setRedirectHosts(['https://not-a-host/'])).rejects.toBeInstanceOf(ValidationError);
    expect(item).toEqual({
      url: 'https://192.0.2.10/articles/spring',
      content_type: 'Article',
      added: expect.stringMatching(DATETIME),
      token: expect.any(String),
      state: expect.stringMatching(/^(active|inactive)$/),
      title: '',
    });
    const retyped = await mine.editContent(created.token, item.token, { content_type: 'Video' });
    expect(retyped).toEqual({ ...item, content_type: 'Video' });
    const read = await mine.getCampaign(created.token);
    expect(read).toEqual({
      name: SPRING.name,
      token: created.token,
      start_date: SPRING.start_date,
      end_date: '2026-06-30',
      category: 'Technology',
      brand: 'Acme',
      reach: null,
      target_geography: ['Germany'],
      objective: 'Reach',
      content: [retyped],
    });

    await expect(mine.deleteContent(created.token, item.token)).resolves.toBeUndefined();
    expect((await mine.getCampaign(created.token)).content).toEqual([]);
    await expect(mine.deleteCampaign(created.token)).resolves.toBeUndefined();
    expect(await mine.listCampaigns()).toEqual([]);
    const rotated = await mine.rotateToken(sub.unique_id);
    expect(rotated).toEqual({ ...sub, user_name: 'Analyst', api_token: expect.any(String) });
    await expect(as(sub.api_token).listCampaigns()).rejects.toBeInstanceOf(UnauthorizedError);
    await expect(as(rotated.api_token).listCampaigns()).resolves.toEqual([]);
    await expect(operator().rekeyTokens()).resolves.toEqual({ rekeyed: 0, unreadable: 0, remaining: 0 });
    await expect(operator().reconcileRegistry()).resolves.toEqual({ corrections: 0, campaign_corrections: 0 });

    await expect(mine.deleteUser(sub.unique_id)).resolves.toBeUndefined();
    expect(await mine.listUsers()).toEqual([]);
  });

  test('when input is invalid, then ValidationError carries the code and the fields named by the service', async () => {
    const mine = as((await h.createAccount()).api_token);
    const error = await mine
      .createCampaign({ ...SPRING, start_date: '2026-06-01', end_date: '2026-05-01' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({
      status: 400,
      code: 'validation_error',
      details: [expect.objectContaining({ field: 'start_date' })],
    });
    const bad = await mine.createUser({ email: 'not-an-email', password: 'short' }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(ValidationError);
    expect((bad as ValidationError).details.map((d) => d.field).sort()).toEqual(['email', 'password']);
  });

  test('when the token is unknown, then UnauthorizedError, and the token is nowhere in the error', async () => {
    const token = 'definitely-not-a-real-token-0123456789abcdef';
    const error = await as(token)
      .listCampaigns()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect(error).toMatchObject({ status: 401, code: 'unauthorized' });
    expect(`${(error as Error).message} ${(error as Error).stack} ${JSON.stringify(error)}`).not.toContain(token);
    await expect(
      new AdminClient({ managementUrl: h.baseUrl, adminToken: 'wrong-admin-token' }).createAccount({
        email: email('x'),
        password: 'long enough pw',
      }),
    ).rejects.toBeInstanceOf(UnauthorizedError);
  });

  test('when a sub-user manages users, then ForbiddenError', async () => {
    const owner = as((await h.createAccount()).api_token);
    const sub = await owner.createUser({ email: email('sub'), password: 'long enough pw' });
    await expect(as(sub.api_token).listUsers()).rejects.toMatchObject({
      name: 'ForbiddenError',
      status: 403,
      code: 'forbidden',
    });
    await expect(
      as(sub.api_token).createUser({ email: email('subsub'), password: 'long enough pw' }),
    ).rejects.toBeInstanceOf(ForbiddenError);
  });

  test("when a resource is unknown or another user's, then NotFoundError; a second delete is NotFoundError too", async () => {
    const alice = as((await h.createAccount()).api_token);
    const bob = as((await h.createAccount()).api_token);
    const campaign = await alice.createCampaign(SPRING);
    await expect(bob.getCampaign(campaign.token)).rejects.toBeInstanceOf(NotFoundError);
    await expect(bob.editCampaign(campaign.token, { reach: 1 })).rejects.toMatchObject({
      status: 404,
      code: 'not_found',
    });
    await expect(
      alice.editContent(campaign.token, 'AAAAAAAAAAAAAAAAAAAAAA', { content_type: 'Quiz' }),
    ).rejects.toBeInstanceOf(NotFoundError);
    await alice.deleteCampaign(campaign.token);
    await expect(alice.deleteCampaign(campaign.token)).rejects.toBeInstanceOf(NotFoundError);
  });

  test('when an e-mail or a URL is taken, then ConflictError', async () => {
    const address = email('dup');
    await operator().createAccount({ email: address, password: 'long enough pw' });
    await expect(operator().createAccount({ email: address, password: 'long enough pw' })).rejects.toMatchObject({
      name: 'ConflictError',
      status: 409,
      code: 'conflict',
    });
    const mine = as((await h.createAccount()).api_token);
    const campaign = await mine.createCampaign(SPRING);
    await mine.addContent(campaign.token, { url: 'https://192.0.2.11/a' });
    await expect(mine.addContent(campaign.token, { url: 'https://192.0.2.11/a' })).rejects.toBeInstanceOf(
      ConflictError,
    );
  });
});
