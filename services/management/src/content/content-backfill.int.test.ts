import { MongoClient, type Collection, type Db } from 'mongodb';
import { uniqueName } from '@cm/testkit';
import { CAMPAIGNS_COLLECTION, type CampaignDocument } from '../campaigns/campaign-store';
import { redirectHostOf } from '../registry/owner-record';
import { backfillContentField } from './content-backfill';
import { canonicalContentUrl, contentToken, pageKeyOf } from './content-url';

// Items as the release before page keys and redirect hosts stored them, backfilled over the
// MongoDB stand-in; a campaign that changes meanwhile is a collection whose updates are preceded
// by a removal (a wrapper of the real one: the race made to happen every time).
let client: MongoClient;
let db: Db;
/** The test's own campaigns collection (a backfill goes over every campaign of it). */
let campaigns: Collection<CampaignDocument>;

beforeAll(async () => {
  client = await MongoClient.connect(process.env.MONGO_URL!);
  db = client.db(uniqueName('content_backfill'));
});
beforeEach(() => {
  campaigns = db.collection<CampaignDocument>(uniqueName(CAMPAIGNS_COLLECTION));
});
afterAll(async () => {
  await db.dropDatabase();
  await client.close();
});

/** Real-looking pasted URLs: tracking parameters, click ids, fragments, upper case, an IDN host, trailing slashes. */
function pasted(i: number): string {
  switch (i % 4) {
    case 0:
      return `https://news.example/world/story-${i}/?utm_source=newsletter&utm_medium=email#comments`;
    case 1:
      return `https://shop.example/p/${i}?colour=navy&gclid=EAIaIQob${i}&size=m`;
    case 2:
      return `https://xn--bcher-kva.example/katalog/${i}?fbclid=IwAR0${i}`;
    default:
      return `https://Blog.Example/${i}/Post?ref=home&q=caf%C3%A9#top`;
  }
}

/** A campaign whose `count` items have neither a page key nor a redirect host. */
async function legacyCampaign(count: number): Promise<string> {
  const token = 'legacy';
  const now = new Date();
  await campaigns.insertOne({
    _id: token,
    owner_id: '171800000000001',
    name: token,
    content: Array.from({ length: count }, (_, i) => ({
      token: `item${String(i).padStart(18, '0')}`,
      url: pasted(i),
      content_type: null,
      added: now,
      title: '',
      title_state: 'done',
    })),
  } as never);
  return token;
}

const items = async (token: string) => (await campaigns.findOne({ _id: token }))?.content ?? [];

/** The real collection, but each of its first `times` updates is preceded by the removal of the campaign's first item. */
function removingFirstItem(token: string, times: number): Collection<CampaignDocument> {
  let left = times;
  return new Proxy(campaigns, {
    get(target, property, receiver) {
      if (property !== 'updateOne') return Reflect.get(target, property, receiver);
      return async (...args: Parameters<Collection<CampaignDocument>['updateOne']>) => {
        if (left-- > 0) {
          const first = (await items(token))[0];
          await target.updateOne({ _id: token }, { $pull: { content: { token: first?.token } } });
        }
        return target.updateOne(...args);
      };
    },
  });
}

describe('backfilling fields that items stored before them lack', () => {
  test('when a campaign holds 2,500 such items, then each gets the page key and host of its own URL, tokens and order kept', async () => {
    const token = await legacyCampaign(2500);
    expect(await backfillContentField(campaigns, 'page_key', pageKeyOf)).toBe(2500);
    expect(await backfillContentField(campaigns, 'host', (item) => redirectHostOf(item.url))).toBe(2500);
    const stored = await items(token);
    expect(stored.map((item) => item.token)).toEqual(
      Array.from({ length: 2500 }, (_, i) => `item${String(i).padStart(18, '0')}`),
    );
    for (const item of stored) {
      expect(item.page_key).toBe(contentToken(canonicalContentUrl(item.url)!));
      expect(item.host).toBe(redirectHostOf(item.url));
    }
    // a second pass finds nothing left
    expect(await backfillContentField(campaigns, 'page_key', pageKeyOf)).toBe(0);
  });

  test('when an item is removed between the read and the write, then no value lands on a neighbour and every item left gets its own', async () => {
    const token = await legacyCampaign(40);
    const racing = removingFirstItem(token, 1);
    expect(await backfillContentField(racing, 'page_key', pageKeyOf)).toBe(39);
    const stored = await items(token);
    expect(stored).toHaveLength(39);
    for (const item of stored) expect(item.page_key).toBe(contentToken(canonicalContentUrl(item.url)!));
  });

  test('when the items move before every positional attempt, then each item left is still given its own, found by token', async () => {
    const token = await legacyCampaign(12);
    const racing = removingFirstItem(token, 3);
    expect(await backfillContentField(racing, 'host', (item) => redirectHostOf(item.url))).toBe(9);
    const stored = await items(token);
    expect(stored).toHaveLength(9);
    for (const item of stored) expect(item.host).toBe(redirectHostOf(item.url));
  });
});
