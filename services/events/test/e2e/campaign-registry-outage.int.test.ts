import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { canonicalPageUrl, type CampaignRecord } from '@cm/contracts';
import { startNatsServer, uniqueName, type LocalServer } from '@cm/testkit';
import {
  TEST_ADMIN_TOKEN,
  startManagementHarness,
  type ManagementHarness,
} from '../../../management/test/support/management-harness';
import { startEventsHarness, waitUntil, type EventsHarness } from '../support/events-harness';

// Both services on a NATS server of this test's own, which the test stops and starts again.
let storeDir: string;
let nats: LocalServer;
let events: EventsHarness;
let management: ManagementHarness;
let owner: { unique_id: string; api_token: string };

beforeAll(async () => {
  storeDir = mkdtempSync(path.join(os.tmpdir(), 'campaigns-outage-'));
  nats = await startNatsServer({ storeDir });
  const shared = {
    NATS_URL: nats.url,
    CAMPAIGN_REGISTRY_BUCKET: uniqueName('campaigns_outage'),
    OWNER_REGISTRY_BUCKET: uniqueName('owners_outage'),
  };
  // management first this time: it creates the bucket, events replays it
  management = await startManagementHarness({
    ...shared,
    REGISTRY_SYNC_TIMEOUT_MS: '300',
    REGISTRY_RELAY_INTERVAL_MS: '200',
  });
  owner = await management.createAccount();
  events = await startEventsHarness(shared);
});
afterAll(async () => {
  await management.stop();
  await events.stop();
  await nats.stop();
  rmSync(storeDir, { recursive: true, force: true });
});

const lookup = (token: string) => events.system.campaigns?.campaign(owner.unique_id, token);
const seen = (token: string, ok: (r: CampaignRecord | undefined) => boolean, what: string) =>
  waitUntil(() => ok(lookup(token)), 30_000, what);

describe('a campaign change that could not reach NATS', () => {
  test('when NATS is down while a campaign is edited and filled, then the relay publishes it once NATS is back and the events service follows', async () => {
    const body = { name: 'Outage', start_date: '2026-10-01', end_date: '2026-10-31', category: 'Fashion' };
    const token = (await management.request('POST', '/api/v3/campaign/', { token: owner.api_token, body })).body
      .token as string;
    await seen(token, (r) => r !== undefined, 'the campaign');
    await nats.stop();
    const pasted = 'https://Lookbook.Example/autumn?utm_source=ig&igshid=abc#look-3';
    expect(
      (
        await management.request('POST', `/api/v3/campaign/${token}/content/`, {
          token: owner.api_token,
          body: { url: pasted },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await management.request('POST', `/api/v3/campaign/${token}/`, {
          token: owner.api_token,
          body: { end_date: '2026-11-15', reach: 90_000 },
        })
      ).status,
    ).toBe(200);
    // the events service keeps serving what it had
    expect(lookup(token)?.end_date).toBe('2026-10-31');
    nats = await startNatsServer({ port: nats.port, storeDir });
    await seen(token, (r) => r?.end_date === '2026-11-15', 'the edit made while NATS was down');
    // the page, in the form the registry carries (management's canonicaliser)
    const page = canonicalPageUrl(pasted);
    expect(page.ok).toBe(true);
    expect(lookup(token)).toMatchObject({
      revision: 3,
      reach: 90_000,
      urls: [page.ok && page.url],
    });
  }, 90_000);

  test('when a record vanishes from the bucket, then reconciliation writes it back and the events service has it again', async () => {
    const body = { name: 'Vanishing', start_date: '2026-10-01', end_date: '2026-10-31', category: 'Fashion' };
    const token = (await management.request('POST', '/api/v3/campaign/', { token: owner.api_token, body })).body
      .token as string;
    await seen(token, (r) => r !== undefined, 'the campaign');
    await (await management.campaignBucket()).purge(token);
    await seen(token, (r) => r === undefined, 'the campaign gone with its key');
    const res = await management.request('POST', '/admin/v1/registry/reconcile', { token: TEST_ADMIN_TOKEN });
    expect(res.body.campaign_corrections).toBeGreaterThanOrEqual(1);
    await seen(token, (r) => r?.name === 'Vanishing', 'the campaign back');
  });
});
