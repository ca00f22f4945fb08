import { toCampaignValues } from '@cm/contracts';
import { buildCampaignRecord, sameCampaignState, type CampaignOwner, type RegistryCampaign } from './campaign-record';

const campaign: RegistryCampaign = {
  _id: 'c4mpa1gn_T0ken-xyz',
  owner_id: '123456789012345',
  name: 'Black Friday',
  start_date: '2026-11-20',
  end_date: '2026-11-30',
  reach: 250_000,
  objective: 'Reach',
  target_geography: [],
  revision: 4,
  content: [
    { url: 'https://shop.example/deals?utm_source=mail&id=9#top' },
    { url: 'https://SHOP.example:443/deals?id=9&utm_medium=email' },
    { url: 'https://xn--bcher-kva.example/angebote' },
  ],
};
const owner: CampaignOwner = { timezone: 'Europe/Vienna', target_geography: ['Austria', 'Germany'], deleted: false };
const identity = (url: string) => url;

describe('buildCampaignRecord', () => {
  test("when the campaign has no geography, then its owner's countries in alpha-2, sorted, and the owner's time zone", () => {
    expect(buildCampaignRecord(campaign, owner, identity)).toEqual({
      token: campaign._id,
      owner_id: campaign.owner_id,
      revision: 4,
      name: 'Black Friday',
      urls: [
        'https://SHOP.example:443/deals?id=9&utm_medium=email',
        'https://shop.example/deals?utm_source=mail&id=9#top',
        'https://xn--bcher-kva.example/angebote',
      ],
      start_date: '2026-11-20',
      end_date: '2026-11-30',
      timezone: 'Europe/Vienna',
      reach: 250_000,
      objective: 'Reach',
      target_countries: ['AT', 'DE'],
      target_source: 'owner',
    });
  });

  test('when the campaign names countries, then they win; with none anywhere the source is none; without a zone the owner is in UTC', () => {
    const own = buildCampaignRecord({ ...campaign, target_geography: ['United States of America'] }, owner, identity);
    expect(own).toMatchObject({ target_countries: ['US'], target_source: 'campaign' });
    const none = buildCampaignRecord(campaign, { deleted: false }, identity);
    expect(none).toMatchObject({ target_countries: [], target_source: 'none', timezone: 'UTC' });
  });

  test('when URLs canonicalise to one page, then the record lists it once; a canonicaliser that throws leaves the stored URL', () => {
    const canonical = (url: string) => {
      if (url.includes('bcher')) throw new Error('cannot read');
      const u = new URL(url);
      u.hash = '';
      u.searchParams.delete('utm_source');
      u.searchParams.delete('utm_medium');
      return u.href;
    };
    expect(buildCampaignRecord(campaign, owner, canonical)).toMatchObject({
      urls: ['https://shop.example/deals?id=9', 'https://xn--bcher-kva.example/angebote'],
    });
  });

  test('when the campaign is deleted, or its owner is deleted or gone, then the record is a tombstone at its revision', () => {
    const tombstone = { token: campaign._id, owner_id: campaign.owner_id, revision: 4, deleted: true };
    expect(buildCampaignRecord({ ...campaign, deleted_at: new Date() }, owner, identity)).toEqual(tombstone);
    expect(buildCampaignRecord(campaign, { ...owner, deleted: true }, identity)).toEqual(tombstone);
    expect(buildCampaignRecord(campaign, undefined, identity)).toEqual(tombstone);
  });
});

describe('sameCampaignState', () => {
  const desired = buildCampaignRecord(campaign, owner, identity);
  const stored = (value = desired) => toCampaignValues(value).header;

  test('when only the revision differs, then the state is the same', () => {
    expect(sameCampaignState(stored({ ...desired, revision: 9 }), desired)).toBe(true);
  });

  test.each([
    ['another time zone', { timezone: 'UTC' }],
    ['other URLs', { urls: ['https://shop.example/other'] }],
    ['other countries', { target_countries: ['DE'] }],
    ['another end date', { end_date: '2026-12-01' }],
    ['no reach', { reach: null }],
  ])('when the bucket says %s, then the state differs', (_, change) => {
    expect(sameCampaignState(stored({ ...desired, ...change } as never), desired)).toBe(false);
  });

  test('when one side is a tombstone, then the state differs; two tombstones of the owner are the same', () => {
    const tombstone = { token: campaign._id, owner_id: campaign.owner_id, revision: 5, deleted: true as const };
    expect(sameCampaignState(stored(tombstone as never), desired)).toBe(false);
    expect(sameCampaignState(toCampaignValues(tombstone).header, tombstone)).toBe(true);
  });
});
