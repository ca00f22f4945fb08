import { startManagementHarness, waitFor, type ManagementHarness } from '../../test/support/management-harness';

let h: ManagementHarness;
beforeAll(async () => {
  h = await startManagementHarness();
});
afterAll(async () => {
  await h.stop();
});

// The documentation range: the title fetcher refuses these without network traffic.
const HOST = '192.0.2.77';
const ROUNDS = 12;
const WIDTH = 3;

describe('content hosts under concurrent add and remove', () => {
  test('when content is added while other content with the same host is removed, then after every round the registry record holds exactly the hosts of the content that exists', async () => {
    const owner = await h.createAccount();
    const campaign = (
      await h.request('POST', '/api/v3/campaign/', {
        token: owner.api_token,
        body: { name: 'Race', start_date: '2026-01-01', end_date: '2026-02-01', category: 'Other' },
      })
    ).body.token as string;
    const add = (n: number) =>
      h.request('POST', `/api/v3/campaign/${campaign}/content/`, {
        token: owner.api_token,
        body: { url: `https://${HOST}/page-${n}` },
      });
    // several items share the host: each round removes them all while as many new ones are added
    let current = await Promise.all(Array.from({ length: WIDTH }, async (_, i) => (await add(i)).body.token as string));
    const users = (await h.db()).collection<{ _id: string; registry_pending?: true }>('users');

    for (let round = 1; round <= ROUNDS; round++) {
      const adds = Array.from({ length: WIDTH }, (_, i) => add(round * WIDTH + i));
      const removes = current.map((token) =>
        h.request('DELETE', `/api/v3/campaign/${campaign}/${token}/`, { token: owner.api_token }),
      );
      const [added, removed] = await Promise.all([Promise.all(adds), Promise.all(removes)]);
      expect([...added.map((r) => r.status), ...removed.map((r) => r.status)]).toEqual([
        ...Array(WIDTH).fill(200),
        ...Array(WIDTH).fill(204),
      ]);
      current = added.map((r) => r.body.token as string);
      // every announcement of this round is in the bucket (the relay finishes one that was slow)
      await waitFor(
        () => users.findOne({ _id: owner.unique_id }),
        (user) => user !== null && user.registry_pending === undefined,
      );
      const content = (await h.request('GET', `/api/v3/campaign/${campaign}/`, { token: owner.api_token })).body
        .content as { url: string }[];
      const contentHosts = [...new Set(content.map((c) => new URL(c.url).hostname))];
      expect({ round, hosts: (await h.ownerRecord(owner.unique_id))?.redirect_hosts }).toEqual({
        round,
        hosts: contentHosts,
      });
    }
  });
});
