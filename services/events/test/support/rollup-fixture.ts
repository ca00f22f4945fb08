import type { Measures } from '@cm/contracts';
import { MongoClient, type Db, type Document } from 'mongodb';
import { v7 } from 'uuid';
import { createLogger } from '@cm/platform';
import { uniqueName } from '@cm/testkit';
import { BucketWriter } from '../../src/consumer/bucket-writer';
import type { ReportPlan } from '../../src/reporting/plan/plan-report';
import { MarksView } from '../../src/reporting/plan/marks-view';
import { PlannedCountSource } from '../../src/reporting/read/planned-count-source';
import type { CampaignLookup } from '../../src/registry/campaign-registry-watcher';
import { ReportService } from '../../src/reporting/http/report-service';
import { BrokenUnits } from '../../src/rollups/broken-units';
import { CellStore } from '../../src/rollups/cell-store';
import { RollupBuilder, type RollupBuilderOptions } from '../../src/rollups/rollup-builder';
import { HeldMarks } from '../../src/rollups/held-marks';
import { RollupMarks } from '../../src/rollups/rollup-marks';
import { bucketName } from '../../src/storage/bucket-naming';
import type { EventDocument } from '../../src/storage/event-document';
import { withInsertHook, type InsertHook } from './insert-hook';

/** The report limits of the rollup tests: wide enough that no test meets one by accident. */
export const REPORT_LIMITS = {
  maxRangeDays: 400,
  maxBuckets: 10_000,
  deadlineMs: 600_000,
  maxGroups: 100_000,
  maxRankedGroups: 1_000_000,
  countryFloor: 0,
};

export const PREFIX = 'events';

/** A seeded PRNG (mulberry32): the same run for the same seed, so a failure reproduces. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The rollup path against the test run's MongoDB in a database of its own: writes through the
 * consumer's BucketWriter (with write marks), a builder, and two report services over the same
 * data: one planned over rollups, one raw only (the reference).
 */
export interface RollupFixture {
  db: Db;
  marks: RollupMarks;
  held: HeldMarks;
  cells: CellStore;
  writer: BucketWriter;
  builder(opts?: Partial<RollupBuilderOptions>): RollupBuilder;
  /** Planned over rollups, through a view of the marks as the reporting process keeps one (MarksView). */
  rolled: ReportService;
  raw: ReportService;
  /**
   * Resolves once the rolled service's view of the marks was read again after this call: `write`
   * and a builder's `runOnce` wait for it, so the next reports plan with what they left.
   */
  caughtUp(): Promise<void>;
  /** Parts of the rolled service's reports by source, to show rollups were really used (zone days among the units). */
  usage: { rollupUnits: number; rawParts: number; zoneDays: number };
  /** Writes events bucket by bucket through the writer, in batches of `batch`. */
  write(docs: readonly EventDocument[], batch?: number): Promise<void>;
  stop(): Promise<void>;
}

const silent = createLogger({ service: 'rollup-test', level: 'error', silent: true });

export const BUILDER_DEFAULTS: RollupBuilderOptions = {
  prefix: PREFIX,
  graceMs: 0,
  abandonMs: 10 * 365 * 86_400_000,
  batchUnits: 100_000,
  rawRetentionDays: 100_000,
};

export interface RollupFixtureOptions {
  maxGroups?: number;
  /** The clock of the marks and the holds (the builder takes its own `now`). */
  now?: () => number;
  /** The holds' renewal and refresh interval. */
  holdMs?: number;
  /** What the writer's inserts go through (a slow or failing database). */
  insertHook?: InsertHook;
  /** REPORT_COUNTRY_FLOOR of both report services (default 0: off, so answers can be checked against the events). */
  countryFloor?: number;
  /** The campaigns both report services know (none by default). */
  campaigns?: CampaignLookup;
  /** ROLLUP_ZONES of the writer's marks and the rolled service (none by default). */
  zones?: readonly string[];
  /** REPORT_MARKS_MAX_AGE_MS of the rolled service's view of the marks (0: it reads the store for every report). */
  marksMaxAgeMs?: number;
}

/** Short, so a test waits little for the view; refreshed every half of it. */
const TEST_MARKS_MAX_AGE_MS = 100;

export async function startRollupFixture(limits: RollupFixtureOptions = {}): Promise<RollupFixture> {
  const client = await MongoClient.connect(process.env.MONGO_URL!);
  const db = client.db(uniqueName('rollups'));
  const now = limits.now;
  const zones = limits.zones ?? [];
  const marks = new RollupMarks(db, now && (() => new Date(now())), zones);
  const cells = new CellStore(db);
  await marks.init();
  // the consumer's marks: held open per unit while writes keep coming
  const held = new HeldMarks(marks, { holdMs: limits.holdMs ?? 10_000, lingerMs: 1000, now, zones });
  const writer = new BucketWriter(
    limits.insertHook ? withInsertHook(db, limits.insertHook) : db,
    silent,
    { w: 'majority', journal: true },
    held,
  );
  // answers, not speed: a report's deadline and query timeout (tested on their own) far above what
  // a busy machine takes, so a loaded CI host never turns a comparison into a 503
  const options = { prefix: PREFIX, maxRangeDays: 400, concurrency: 8, queryTimeoutMs: 600_000, deadlineMs: 600_000 };
  const usage = { rollupUnits: 0, rawParts: 0, zoneDays: 0 };
  const view = new MarksView(marks, { maxAgeMs: limits.marksMaxAgeMs ?? TEST_MARKS_MAX_AGE_MS });
  const onPlan = (plan: ReportPlan) => {
    usage.rollupUnits += plan.rollup.length;
    usage.zoneDays += plan.rollup.filter((s) => s.unit.zone !== undefined).length;
    usage.rawParts += plan.raw.length;
  };
  const serviceLimits = {
    ...REPORT_LIMITS,
    maxGroups: limits.maxGroups ?? REPORT_LIMITS.maxGroups,
    countryFloor: limits.countryFloor ?? REPORT_LIMITS.countryFloor,
  };
  return {
    db,
    marks,
    held,
    cells,
    writer,
    builder: (opts = {}) => {
      const builder = new RollupBuilder(db, marks, cells, { ...BUILDER_DEFAULTS, ...opts });
      const runOnce = builder.runOnce.bind(builder);
      builder.runOnce = async () => {
        const pass = await runOnce();
        await view.caughtUp();
        return pass;
      };
      return builder;
    },
    caughtUp: () => view.caughtUp(),
    rolled: new ReportService(
      new PlannedCountSource(db, {
        ...options,
        onPlan,
        rollups: { marks: view, cells, broken: new BrokenUnits(marks.collection, cells, silent), zones },
      }),
      serviceLimits,
      limits.campaigns,
    ),
    usage,
    raw: new ReportService(new PlannedCountSource(db, options), serviceLimits, limits.campaigns),
    async write(docs, batch = 50) {
      const byBucket = new Map<string, EventDocument[]>();
      for (const doc of docs) {
        const name = bucketName(PREFIX, doc.created);
        byBucket.set(name, [...(byBucket.get(name) ?? []), doc]);
      }
      for (const [bucket, list] of byBucket) {
        for (let i = 0; i < list.length; i += batch) await writer.write(bucket, list.slice(i, i + batch));
      }
      // the writer does not wait for its finished marks (held, then stored); a stopping consumer stores them
      await held.drain();
      await view.caughtUp();
    },
    async stop() {
      await view.stop();
      await db.dropDatabase().catch(() => undefined);
      await client.close();
    },
  };
}

export const OWNERS = ['7001', '7002'];
const NAMES = ['impression', 'click', 'view', 'share'];
const URLS = ['', 'https://a.example/1', 'https://a.example/2', 'https://b.example/x?y=1', 'https://b.example/€'];
const CONTENT_IDS = ['', 'c1', 'c2', 'c3'];
const DEVICES = ['desktop', 'tablet', 'mobile'] as const;

/** Visitor hashes across the 52-bit range (the top ones included). */
const VISITORS = Array.from({ length: 60 }, (_, i) => (i * 75_059_029_637_121) % 2 ** 52);
/**
 * Each visitor's country, skewed like a real audience: a third in one country, a few countries of
 * several visitors, a tail of one or two each, and some unknown. Tied to the visitor (a person is
 * in one place), so rows of a country have few visitors and a country floor folds some of them.
 */
const VISITOR_COUNTRIES = new Map(
  VISITORS.map((v, i) => [
    v,
    i < 20 ? 'US' : i < 28 ? 'DE' : i < 34 ? 'FR' : i < 52 ? ['JP', 'BR', 'XK', 'CA', 'IN', 'NG'][i % 6] : undefined,
  ]),
);
/** The countries events carry, for reports that filter by them. */
export const EVENT_COUNTRIES = ['US', 'DE', 'FR', 'JP', 'BR', 'XK', 'CA', 'IN', 'NG'];

/**
 * Some events carry measures: engaged time (repeated values, so groups share them), a scroll depth,
 * a conversion value up to the largest allowed; most carry none.
 */
function randomMeasures(random: () => number): { measures?: Measures } {
  const measures: Measures = {};
  if (random() < 0.3) measures.engaged_ms = random() < 0.2 ? 0 : Math.floor(random() ** 3 * 600_000);
  if (random() < 0.2) measures.scroll_depth = Math.floor(random() * 101);
  if (random() < 0.1) measures.value = random() < 0.05 ? 1_000_000_000_000 : Math.floor(random() * 50_000);
  return Object.keys(measures).length > 0 ? { measures } : {};
}

/**
 * Random events in [from, to): some on exact hour edges, some sharing a millisecond, 10 % bots;
 * visitors from a small pool with their countries (events without a visitor: some in FR).
 */
export function randomEvents(random: () => number, count: number, from: number, to: number): EventDocument[] {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const out: EventDocument[] = [];
  for (let i = 0; i < count; i++) {
    let t = from + Math.floor(random() * (to - from));
    const r = random();
    if (r < 0.1)
      t = Math.floor(t / 3_600_000) * 3_600_000; // on an hour edge
    else if (r < 0.15)
      t = Math.floor(t / 3_600_000) * 3_600_000 - 1; // the last ms before one
    else if (r < 0.2 && out.length > 0) t = out[out.length - 1]!.created.getTime(); // same ms as another event
    const metadata: Record<string, string> = {};
    if (random() < 0.8) metadata.campaign = pick(['spring', 'autumn', 'x.y', '']);
    if (random() < 0.5) metadata.variant = pick(['a', 'b']);
    if (random() < 0.1) metadata['a.b'] = 'dotted';
    out.push({
      _id: v7({ msecs: t, random: Uint8Array.from({ length: 16 }, () => Math.floor(random() * 256)) }),
      owner_id: pick(OWNERS),
      name: pick(NAMES),
      url: pick(URLS),
      content_id: pick(CONTENT_IDS),
      device_type: pick(DEVICES),
      bot: random() < 0.1,
      metadata,
      created: new Date(t),
      // a small pool, so visitors repeat across hours, days, urls and names; some events predate visitors
      ...(random() < 0.9 ? { visitor: VISITORS[Math.floor(random() * VISITORS.length)]! } : {}),
      ...randomMeasures(random),
    });
    // the country follows from what was drawn (no draw of its own): a seed gives the same events as before countries, now with them
    const event = out[out.length - 1]!;
    const country =
      event.visitor === undefined ? (t % 3 === 0 ? 'FR' : undefined) : VISITOR_COUNTRIES.get(event.visitor);
    if (country !== undefined) event.country = country;
    Object.assign(event, attributionOf(t));
  }
  return out;
}

const SOURCES = [
  ['google', 'cpc'],
  ['facebook', 'paid_social'],
  ['newsletter', 'email'],
] as const;

/**
 * Campaign fields and the referring host, from the event's time alone (no draw of its own, so a
 * seed gives the same events as before attribution, now with it): three in seven events tagged,
 * some with an ad variant or a search term; most with a referrer.
 */
function attributionOf(t: number): Partial<EventDocument> {
  const out: Partial<EventDocument> = {};
  const tag = t % 7;
  if (tag < 3) {
    const [source, medium] = SOURCES[tag]!;
    out.utm_source = source;
    out.utm_medium = medium;
    out.utm_campaign = ['spring', 'autumn', 'x.y'][Math.floor(t / 7) % 3]!;
    if (t % 5 === 0) out.utm_content = ['ad-a', 'ad-b'][Math.floor(t / 5) % 2]!;
    if (tag === 0 && t % 4 === 0) out.utm_term = ['red shoes', 'shoes'][Math.floor(t / 4) % 2]!;
  }
  if (t % 4 !== 1) out.referrer = ['www.google.com', 'l.facebook.com', 'news.example'][Math.floor(t / 3) % 3]!;
  return out;
}

/**
 * Every page of every unit (each must be current, none dirty), by unit, owner, family and page
 * number, generation ids left out: two builds of the same events compare byte for byte.
 */
export async function currentPages(f: RollupFixture): Promise<Map<string, Document>> {
  const out = new Map<string, Document>();
  for (const mark of await f.marks.collection.find({}).toArray()) {
    if (mark.dirty) throw new Error(`unit ${mark._id} is still dirty`);
    const g = mark.b!.g;
    for (const { _id: _, g: __, ...page } of await f.cells.collection.find({ g }).toArray())
      out.set(`${mark._id} ${page.o as string} ${page.f as string} ${page.p as number}`, page);
  }
  return out;
}
