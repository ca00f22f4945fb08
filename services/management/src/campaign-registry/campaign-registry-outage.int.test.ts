import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startNatsServer } from '@cm/testkit';
import { canonicalContentUrl } from '../content/content-url';
import { startManagementHarness, waitFor } from '../../test/support/management-harness';

describe('when NATS is down', () => {
  test('when campaigns are created, edited, filled and deleted while NATS is unreachable, then every call succeeds and the relay publishes each record once NATS is back', async () => {
    const storeDir = mkdtempSync(path.join(os.tmpdir(), 'mgmt-campaigns-nats-'));
    let nats = await startNatsServer({ storeDir });
    const h = await startManagementHarness({
      NATS_URL: nats.url,
      REGISTRY_SYNC_TIMEOUT_MS: '300',
      REGISTRY_RELAY_INTERVAL_MS: '200',
    });
    try {
      const owner = await h.createAccount();
      const token = owner.api_token;
      const body = { name: 'Outage', start_date: '2026-06-01', end_date: '2026-06-30', category: 'Retail' };
      const doomed = (await h.request('POST', '/api/v3/campaign/', { token, body })).body.token as string;
      await nats.stop();

      const created = await h.request('POST', '/api/v3/campaign/', { token, body });
      expect(created.status).toBe(200);
      const kept = created.body.token as string;
      const pasted = 'https://Shop.Example/sale?utm_source=mail&mc_cid=42#top';
      const added = await h.request('POST', `/api/v3/campaign/${kept}/content/`, { token, body: { url: pasted } });
      expect(added.status).toBe(200);
      expect(
        (await h.request('POST', `/api/v3/campaign/${kept}/`, { token, body: { end_date: '2026-07-31' } })).status,
      ).toBe(200);
      expect((await h.request('DELETE', `/api/v3/campaign/${doomed}/`, { token })).status).toBe(204);
      expect(await h.metric('management_campaign_registry_pending')).toBe(2);

      nats = await startNatsServer({ port: nats.port, storeDir });
      expect(
        await waitFor(
          () => h.campaignRecord(kept),
          (r) => r?.revision === 3,
          20_000,
        ),
      ).toMatchObject({
        end_date: '2026-07-31',
        urls: [canonicalContentUrl(pasted)],
      });
      expect(
        await waitFor(
          () => h.campaignRecord(doomed),
          (r) => r?.deleted === true,
          20_000,
        ),
      ).toMatchObject({ revision: 2 });
      await waitFor(
        () => h.metric('management_campaign_registry_pending'),
        (n) => n === 0,
      );
    } finally {
      await h.stop();
      await nats.stop();
      rmSync(storeDir, { recursive: true, force: true });
    }
  });
});
