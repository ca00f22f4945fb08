#!/usr/bin/env node
// `pnpm bench:content-backfill`: management's start-up backfill of content items stored before
// page keys existed (the key of an item's canonical URL), two ways side by side on one campaign
// per size: one update per item (as the backfill first did: each update rewrites the whole
// campaign document) and backfillContentField (a few updates per campaign, the items named by
// position). Per size and way: the time to give every item its page key, or, for one update per
// item, how many it gave in BENCH_PER_ITEM_MAX_S seconds when it does not finish (the rate is
// then what it shows). On the MongoDB stand-in (in memory, as the tests use it) unless MONGO_URL
// names a server.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const testkit = require(path.join(root, 'packages/testkit/dist'));
const { backfillContentField } = require(path.join(root, 'services/management/dist/content/content-backfill.js'));
const { pageKeyOf } = require(path.join(root, 'services/management/dist/content/content-url.js'));
const { MongoClient } = createRequire(path.join(root, 'services/management/package.json'))('mongodb');

const PER_ITEM_MAX_S = Number(process.env.BENCH_PER_ITEM_MAX_S ?? 60);
const SIZES = [
  { items: 500, length: 120 },
  { items: 500, length: 2048 },
  { items: 5000, length: 120 },
  { items: 5000, length: 2048 },
];
const say = (msg) => console.error(`[bench] ${msg}`);

/** A pasted content URL of `length` characters: a path, tracking parameters, a click id, a fragment. */
function url(i, length) {
  const base = `https://www.publisher.example/news/story-${i}/?utm_source=newsletter&utm_medium=email&gclid=EAIaIQob${i}&p=`;
  return base + 'x'.repeat(Math.max(0, length - base.length - 4)) + '#top';
}

async function legacyCampaign(campaigns, { items, length }) {
  await campaigns.deleteMany({});
  const now = new Date();
  await campaigns.insertOne({
    _id: 'bench',
    owner_id: '171800000000012',
    name: 'bench',
    content: Array.from({ length: items }, (_, i) => ({
      token: `item${String(i).padStart(18, '0')}`,
      url: url(i, length),
      host: 'www.publisher.example',
      content_type: null,
      added: now,
      title: '',
      title_state: 'done',
    })),
  });
}

/** The first release's loop: one positional update per item, stopped after PER_ITEM_MAX_S. */
async function perItem(campaigns) {
  const deadline = Date.now() + PER_ITEM_MAX_S * 1000;
  const campaign = await campaigns.findOne({ _id: 'bench' }, { projection: { 'content.token': 1, 'content.url': 1 } });
  let done = 0;
  for (const item of campaign.content) {
    if (Date.now() > deadline) return { done, finished: false };
    await campaigns.updateOne(
      { _id: 'bench', 'content.token': item.token },
      { $set: { 'content.$.page_key': pageKeyOf(item) } },
    );
    done++;
  }
  return { done, finished: true };
}

async function perCampaign(campaigns) {
  const done = await backfillContentField(campaigns, 'page_key', pageKeyOf);
  return { done, finished: true };
}

async function timed(campaigns, size, run) {
  await legacyCampaign(campaigns, size);
  const t0 = process.hrtime.bigint();
  const { done, finished } = await run(campaigns);
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const stored = await campaigns.findOne({ _id: 'bench' });
  const given = stored.content.filter((item) => item.page_key === pageKeyOf({ url: item.url })).length;
  if (given !== done) throw new Error(`${done} reported, ${given} stored`);
  if (finished && given !== size.items) throw new Error(`${given} of ${size.items} items backfilled`);
  return { seconds, done, finished };
}

async function main() {
  const server = process.env.MONGO_URL ? undefined : await testkit.startMongoStandIn({ heap: '2g' });
  const client = await MongoClient.connect(process.env.MONGO_URL ?? server.url, { serverSelectionTimeoutMS: 60_000 });
  const campaigns = client.db(`bench_backfill_${process.pid}`).collection('campaigns');
  const [load] = (await import('node:os')).loadavg();
  say(`${process.env.MONGO_URL ? 'MONGO_URL' : 'the MongoDB stand-in (memory)'}, load ${load.toFixed(1)}`);
  const rows = [];
  try {
    for (const size of SIZES) {
      const item = await timed(campaigns, size, perItem);
      const campaign = await timed(campaigns, size, perCampaign);
      const perItemText = item.finished
        ? `${item.seconds.toFixed(2)} s`
        : `${item.done} of ${size.items} in ${item.seconds.toFixed(0)} s (stopped)`;
      rows.push(
        `| ${size.items} x ${size.length} | ${perItemText} | ${((item.seconds * 1000) / item.done).toFixed(2)} ms | ${campaign.seconds.toFixed(2)} s |`,
      );
      say(rows.at(-1));
    }
  } finally {
    await client.db(`bench_backfill_${process.pid}`).dropDatabase();
    await client.close();
    await server?.stop();
  }
  console.log('| items x URL characters | one update per item | per item | backfillContentField |');
  console.log('| --- | --- | --- | --- |');
  for (const row of rows) console.log(row);
}

await main();
