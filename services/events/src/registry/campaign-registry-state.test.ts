import {
  campaignKey,
  campaignPartKey,
  encodeCampaignHeader,
  encodeCampaignPart,
  toCampaignValues,
  type CampaignRecord,
} from '@cm/contracts';
import { CampaignRegistryState, type KeyChange } from './campaign-registry-state';

const OWNER = '123456789012345';
const TOKEN = 'k3J_9xQ-aa0bb1cc2dd3ee4ff5gg6hh7ii8jj9kk0ll';

function record(revision: number, urls: string[], changes: Partial<CampaignRecord> = {}): CampaignRecord {
  return {
    token: TOKEN,
    owner_id: OWNER,
    revision,
    name: 'Autumn',
    urls: [...urls].sort(),
    start_date: '2026-09-01',
    end_date: '2026-11-30',
    timezone: 'America/New_York',
    reach: 50_000,
    objective: 'Reach',
    target_countries: ['CA', 'US'],
    target_source: 'owner',
    ...changes,
  };
}

/** The key changes a writer makes for a record: its parts first, then its header. */
function writes(value: Parameters<typeof toCampaignValues>[0]): { parts: KeyChange[]; header: KeyChange } {
  const { header, parts } = toCampaignValues(value);
  return {
    parts: parts.map((p) => ({
      key: campaignPartKey(p.token, p.revision, p.index),
      operation: 'PUT',
      value: encodeCampaignPart(p),
    })),
    header: { key: campaignKey(TOKEN), operation: 'PUT', value: encodeCampaignHeader(header) },
  };
}

const pageUrls = (n: number, tag: string) =>
  Array.from(
    { length: n },
    (_, i) =>
      `https://www.publisher.example/${tag}/story-${i}?id=${i}&utm_campaign=autumn&fbclid=IwAR${i}x${'p'.repeat(1800)}`,
  );

function setup() {
  const invalid: string[] = [];
  return { state: new CampaignRegistryState((key) => invalid.push(key)), invalid };
}

describe('CampaignRegistryState', () => {
  test("when a campaign's header arrives, then its owner finds it and no other owner does", () => {
    const { state } = setup();
    const small = record(1, ['https://shop.example/a?x=1', 'https://xn--bcher-kva.example/b']);
    state.apply(writes(small).header);
    expect(state.campaign(OWNER, TOKEN)).toEqual(small);
    expect(state.campaign('999', TOKEN)).toBeUndefined();
    expect(state.campaign(OWNER, 'other')).toBeUndefined();
    expect(state.size).toBe(1);
  });

  test('when a tombstone or a purge follows, then the campaign is gone', () => {
    const { state } = setup();
    state.apply(writes(record(1, [])).header);
    state.apply(writes({ token: TOKEN, owner_id: OWNER, revision: 2, deleted: true }).header);
    expect(state.campaign(OWNER, TOKEN)).toBeUndefined();
    state.apply(writes(record(3, [])).header);
    state.apply({ key: TOKEN, operation: 'PURGE', value: new Uint8Array() });
    expect(state.size).toBe(0);
  });

  test('when a large campaign arrives in parts, then it is there only once every part is, in any order, and the previous revision is served meanwhile', () => {
    const { state } = setup();
    const first = record(1, pageUrls(300, 'a'));
    const second = record(2, [...pageUrls(300, 'a'), ...pageUrls(200, 'b')]);
    const one = writes(first);
    expect(one.parts.length).toBeGreaterThan(1);
    for (const change of one.parts) state.apply(change);
    state.apply(one.header);
    expect(state.campaign(OWNER, TOKEN)).toEqual(first);

    const two = writes(second);
    state.apply(two.header); // a replay may deliver the header before a part rewritten later
    for (const change of two.parts.slice(1)) state.apply(change);
    expect(state.campaign(OWNER, TOKEN)?.revision).toBe(1);
    state.apply(two.parts[0]!);
    expect(state.campaign(OWNER, TOKEN)).toEqual(second);
  });

  test('when a header older than or equal to the record held arrives again, then nothing changes', () => {
    const { state } = setup();
    const current = record(5, ['https://shop.example/current']);
    state.apply(writes(current).header);
    state.apply(writes(record(4, ['https://shop.example/older'])).header);
    state.apply(writes(record(5, ['https://shop.example/current'])).header);
    expect(state.campaign(OWNER, TOKEN)).toEqual(current);
  });

  test('when a value is no valid record or its parts do not match its digest, then it is reported and the record held stays', () => {
    const { state, invalid } = setup();
    const held = record(1, ['https://shop.example/a']);
    state.apply(writes(held).header);
    state.apply({ key: TOKEN, operation: 'PUT', value: new TextEncoder().encode('{"token":{"$gt":""}}') });
    const next = writes(record(2, pageUrls(300, 'c')));
    const wrong = writes(record(2, pageUrls(300, 'd')));
    for (const change of wrong.parts) state.apply(change);
    state.apply(next.header);
    expect(state.campaign(OWNER, TOKEN)).toEqual(held);
    expect(invalid).toEqual([TOKEN, TOKEN]);
    // a part under the key of another campaign is refused
    state.apply({ ...next.parts[0]!, key: campaignPartKey('someoneElse', 2, 0) });
    expect(invalid).toHaveLength(3);
  });

  test('when the watch starts over and replays, then the state is the same, and it is served all along', () => {
    const { state } = setup();
    const large = record(3, pageUrls(400, 'e'));
    const { parts, header } = writes(large);
    for (const change of [...parts, header]) state.apply(change);
    state.restart();
    expect(state.campaign(OWNER, TOKEN)).toEqual(large);
    for (const change of [...parts, header]) state.apply(change);
    state.replayed();
    expect(state.campaign(OWNER, TOKEN)).toEqual(large);
  });

  test('when a replay (the bucket lost and rebuilt) no longer delivers a campaign, then it is gone once the replay is complete', () => {
    const { state } = setup();
    state.apply(writes(record(1, ['https://shop.example/kept'])).header);
    const other = { ...record(1, []), token: 'goneCampaign' };
    state.apply({ ...writes(other).header, key: 'goneCampaign' });
    state.restart();
    state.apply(writes(record(1, ['https://shop.example/kept'])).header);
    expect(state.campaign(OWNER, 'goneCampaign')).toBeDefined();
    state.replayed();
    expect(state.campaign(OWNER, 'goneCampaign')).toBeUndefined();
    expect(state.campaign(OWNER, TOKEN)).toBeDefined();
  });
});
