import { isTrackingParameter, TRACKING_PARAMETERS } from './tracking-params';

describe('tracking parameters', () => {
  test('when the pinned tidy-url is loaded, then its global rule is there (not renamed) and the list holds it and our additions', () => {
    // tidy-url 1.18.3's global rule has 111 entries; a release that renamed it would leave only ours
    expect(TRACKING_PARAMETERS.size).toBeGreaterThan(120);
    for (const name of ['itm_source', 'pk_campaign', 'mtm_source', 'hsa_cam', 'elqtrackid', 'mkt_tok', 'oly_enc_id'])
      expect(TRACKING_PARAMETERS.has(name)).toBe(true);
  });

  test.each([
    'utm_source',
    'utm_whatever',
    'fbclid',
    'gclid',
    'gbraid',
    'wbraid',
    'dclid',
    'msclkid',
    'yclid',
    'twclid',
    'ttclid',
    'li_fat_id',
    'igshid',
    'mc_cid',
    'mc_eid',
    '_ga',
    '_gl',
    'gad_source',
    'srsltid',
  ])('when the name is %j, then it is tracking', (name) => {
    expect(isTrackingParameter(name)).toBe(true);
  });

  test.each(['p', 'id', 'q', 'page', 'lang', 'ref', 'source', 'mbid', 'utm', 'campaign'])(
    'when the name is %j, then it identifies content and stays',
    (name) => {
      expect(isTrackingParameter(name)).toBe(false);
    },
  );
});
