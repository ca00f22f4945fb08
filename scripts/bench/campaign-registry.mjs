#!/usr/bin/env node
// `pnpm bench:campaign-registry`: the campaign registry on a local nats-server (the pinned release),
// management's writer and the events service's mirror from the build, side by side by record size.
// Per size: how many parts the URLs take, the time of one compare-and-set write of a new revision
// (parts, header and the replaced revision's cleanup) and the time until a watching mirror serves
// that revision (median and max of BENCH_WRITES writes). Then the replay: BENCH_CAMPAIGNS campaigns
// of BENCH_URLS URLs written, a fresh mirror started: time until ready and the heap it holds.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const testkit = require(path.join(root, 'packages/testkit/dist'));
const { createLogger } = require(path.join(root, 'packages/platform/dist'));
const { CampaignRegistryKv } = require(
  path.join(root, 'services/management/dist/campaign-registry/campaign-registry-kv.js'),
);
const { CampaignRegistryWatcher } = require(
  path.join(root, 'services/events/dist/registry/campaign-registry-watcher.js'),
);
const { connect } = createRequire(path.join(root, 'services/events/package.json'))('@nats-io/transport-node');

const WRITES = Number(process.env.BENCH_WRITES ?? 7);
const CAMPAIGNS = Number(process.env.BENCH_CAMPAIGNS ?? 2000);
const URLS = Number(process.env.BENCH_URLS ?? 50);
const OWNER = '171800000000012';
const SIZES = [
  { urls: 50, length: 120 },
  { urls: 500, length: 120 },
  { urls: 500, length: 2048 },
  { urls: 5000, length: 120 },
  { urls: 5000, length: 2048 },
];
const say = (msg) => console.error(`[bench] ${msg}`);
const logger = createLogger({ service: 'bench', level: 'error', silent: true });

/** A real-looking content URL of `length` characters: path, tracking parameters, a click id. */
function url(campaign, i, length) {
  const base = `https://www.publisher.example/${campaign}/story-${i}?utm_source=newsletter&utm_medium=email&gclid=EAIaIQob${i}&p=`;
  return base + 'x'.repeat(Math.max(0, length - base.length));
}

function record(token, revision, urls) {
  return {
    token,
    owner_id: OWNER,
    revision,
    name: token,
    urls: [...urls].sort(),
    start_date: '2026-01-01',
    end_date: '2026-12-31',
    timezone: 'Europe/Berlin',
    reach: 100_000,
    objective: 'Reach',
    target_countries: ['AT', 'DE'],
    target_source: 'campaign',
  };
}

const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const heapMb = () => {
  global.gc?.();
  return process.memoryUsage().heapUsed / 2 ** 20;
};

async function until(check) {
  while (!check()) await new Promise((r) => setImmediate(r));
}

const nats = await testkit.startNatsServer();
const nc = await connect({ servers: nats.url });
try {
  const bucket = `bench_campaigns_${Date.now()}`;
  const kv = new CampaignRegistryKv(nc, bucket, 1);
  const mirror = new CampaignRegistryWatcher(nc, bucket, 1, logger);
  await kv.write({ ...record('warmup', 1, [url('w', 0, 100)]) });
  await mirror.start();

  const rows = [];
  for (const size of SIZES) {
    const token = `size${size.urls}x${size.length}`;
    const urls = Array.from({ length: size.urls }, (_, i) => url(token, i, size.length));
    const bytes = urls.reduce((n, u) => n + u.length, 0);
    const writes = [];
    const served = [];
    for (let revision = 1; revision <= WRITES; revision++) {
      // each revision changes one URL, as a content add or removal would
      const value = record(token, revision, [...urls.slice(1), url(token, size.urls + revision, size.length)]);
      const t0 = process.hrtime.bigint();
      await kv.write(value);
      writes.push(ms(t0));
      await until(() => mirror.campaign(OWNER, token)?.revision === revision);
      served.push(ms(t0));
    }
    const parts = (await kv.partKeys()).filter((k) => k.startsWith(`${token}.`)).length;
    rows.push({ ...size, mb: bytes / 2 ** 20, parts, writes, served });
    say(`${size.urls} x ${size.length}: write ${median(writes).toFixed(1)} ms, served ${median(served).toFixed(1)} ms`);
  }

  const replayBucket = `${bucket}_replay`;
  const replayKv = new CampaignRegistryKv(nc, replayBucket, 1);
  say(`writing ${CAMPAIGNS} campaigns of ${URLS} URLs`);
  for (let c = 0; c < CAMPAIGNS; c++) {
    const token = `replay${c}`;
    await replayKv.write(
      record(
        token,
        1,
        Array.from({ length: URLS }, (_, i) => url(token, i, 120)),
      ),
    );
  }
  if (!global.gc) throw new Error('run with node --expose-gc (pnpm bench:campaign-registry does)');
  let fresh = new CampaignRegistryWatcher(nc, replayBucket, 1, logger);
  const t0 = process.hrtime.bigint();
  await fresh.start();
  const replayMs = ms(t0);
  if (fresh.size !== CAMPAIGNS) throw new Error(`the replay holds ${fresh.size} campaigns, not ${CAMPAIGNS}`);
  await fresh.stop();
  // what the mirror holds: the heap with it, then without it
  const withMirror = heapMb();
  fresh = undefined;
  const held = withMirror - heapMb();
  await mirror.stop();

  console.log(`\n${WRITES} writes per size (each a new revision changing one URL); median (max)\n`);
  console.log('| URLs x characters | URL MB | parts | write ms | served by a watching mirror ms |');
  console.log('|---|---|---|---|---|');
  for (const r of rows)
    console.log(
      `| ${r.urls} x ${r.length} | ${r.mb.toFixed(2)} | ${r.parts || 'inline'} | ${median(r.writes).toFixed(1)} (${Math.max(...r.writes).toFixed(1)}) | ${median(r.served).toFixed(1)} (${Math.max(...r.served).toFixed(1)}) |`,
    );
  console.log(
    `\nreplay: ${CAMPAIGNS} campaigns of ${URLS} URLs of 120 characters (${((CAMPAIGNS * URLS * 120) / 2 ** 20).toFixed(1)} MB of URLs): ready after ${replayMs.toFixed(0)} ms, heap held ${held.toFixed(1)} MB`,
  );
} finally {
  await nc.close();
  await nats.stop();
}
