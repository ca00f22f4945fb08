import { randomBytes } from 'node:crypto';
import { Kvm } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import { encodeOwnerRecord } from '@cm/contracts';
import {
  startNatsCluster,
  startServiceProcess,
  uniqueName,
  waitUntilReady,
  type NatsCluster,
  type ServiceProcess,
} from '@cm/testkit';
import { checkCounts, summarizeLoad, type LoadSummary, type PixelHit } from './load-summary';
import { startPixelLoad } from './pixel-load';
import { ReportReader } from './report-reader';
import { serviceLogTimeline, type LogEntryGroup } from './service-log-timeline';

export interface FailoverScenarioOptions {
  mongoUrl: string;
  /** Pixel requests per second during the whole run. */
  rate: number;
  /** How long each phase lasts: steady load, then after each kill and after each restart. */
  phaseMs: number;
  /** Extra settings for the events service. */
  serviceEnv?: Record<string, string>;
  /** A pixel request still unanswered after this counts as status 0, no answer (default 10 s). */
  hitTimeoutMs?: number;
  log?: (msg: string) => void;
}

export interface FailoverResult {
  summary: LoadSummary;
  /** Every pixel request of the run. */
  hits: PixelHit[];
  acknowledged: number;
  /** Acknowledged events missing from the report, and events the report counts more than once. */
  lost: string[];
  duplicated: string[];
  /** What was done to the cluster and when (ms since the load began). */
  actions: { atMs: number; what: string }[];
  /** The service's own warnings and errors, grouped, with when they first and last appeared. */
  serviceLog: LogEntryGroup[];
  /** From the end of the load until the report counted every acknowledged event. */
  drainMs: number;
}

const BROWSER_UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, fn: () => Promise<T>, ok: (v: T) => boolean, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (ok(v)) return v;
      last = v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms (last: ${String(last)})`);
    await sleep(250);
  }
}

/**
 * Failover on a real 3-node JetStream cluster: the events service (all roles, a
 * separate process, R3 stream and R3 registry bucket, NATS_URL = every node) is started while
 * the cluster still elects its leaders, takes steady pixel traffic, and meanwhile a follower of
 * the events stream is killed with -9 and brought back, then the stream leader. Afterwards every
 * acknowledged (200) event must be in the report exactly once.
 */
export async function runFailoverScenario(opts: FailoverScenarioOptions): Promise<FailoverResult> {
  const say = opts.log ?? (() => undefined);
  const adminToken = `cluster-${randomBytes(16).toString('hex')}`;
  const names = {
    EVENTS_STREAM: uniqueName('EVENTS'),
    OWNER_REGISTRY_BUCKET: uniqueName('owners'),
    CONSUMER_DURABLE: uniqueName('writer'),
  };
  let cluster: NatsCluster | undefined;
  let service: ServiceProcess | undefined;
  try {
    cluster = await startNatsCluster({ waitForJetStream: false });
    let base: string;
    ({ proc: service, baseUrl: base } = await startServiceProcess('events', {
      NODE_ENV: 'test',
      NATS_URL: cluster.url,
      MONGO_URL: opts.mongoUrl,
      MONGO_DB: uniqueName('events_cluster'),
      EVENTS_SUBJECT_PREFIX: uniqueName('ev'),
      EVENTS_DEAD_LETTER_SUBJECT: uniqueName('evdlq'),
      EVENTS_STREAM_REPLICAS: '3',
      OWNER_REGISTRY_REPLICAS: '3',
      CONSUMER_MAX_WAIT_MS: '50',
      REPORT_RATE_LIMIT_PER_MINUTE: '1000000',
      // all the load comes from this one address and owner: the flood limits would drop it (200, not stored)
      PIXEL_RATE_PER_IP: '0',
      PIXEL_RATE_PER_OWNER: '0',
      ADMIN_TOKEN: adminToken,
      SHUTDOWN_TIMEOUT_MS: '3000',
      // debug: the pixel logs the reason of every 503, the timeline below is built from it
      LOG_LEVEL: 'debug',
      ...names,
      ...opts.serviceEnv,
    }));
    await waitUntilReady(base, 90_000);
    say('events service ready on the freshly started cluster');

    const owner = `${Date.now()}${Math.floor(Math.random() * 1000)}`;
    const nc = await connect({ servers: cluster.url.split(','), maxReconnectAttempts: -1, reconnectTimeWait: 250 });
    const kv = await new Kvm(nc).open(names.OWNER_REGISTRY_BUCKET);
    await kv.put(
      owner,
      encodeOwnerRecord({
        owner_id: owner,
        account_id: owner,
        created_at: new Date().toISOString(),
        revision: 1,
        redirect_hosts: [],
      }),
    );
    await nc.close();
    await until(
      'the owner in the ingest registry',
      async () => (await fetch(`${base}/metrics`)).text(),
      (t) => /events_owner_registry_owners\{[^}]*\} 1\b/.test(t),
      20_000,
    );
    const reports = await ReportReader.create(base, adminToken, owner);

    const wallStart = Date.now();
    const load = startPixelLoad({
      baseUrl: base,
      ownerId: owner,
      rate: opts.rate,
      userAgent: BROWSER_UA,
      timeoutMs: opts.hitTimeoutMs,
    });
    const actions: FailoverResult['actions'] = [];
    const act = (what: string) => {
      actions.push({ atMs: Math.round(load.elapsedMs()), what });
      say(`${(load.elapsedMs() / 1000).toFixed(1)} s: ${what}`);
    };
    const allCurrent = () =>
      until(
        'every replica current',
        () => cluster!.currentReplicas(names.EVENTS_STREAM),
        (r) => r.length === 3,
        60_000,
      );

    await sleep(opts.phaseMs);
    const leader = await cluster.streamLeader(names.EVENTS_STREAM);
    const follower = cluster.nodes.map((n) => n.name).find((n) => n !== leader)!;
    for (const [role, node] of [
      ['follower', follower],
      ['stream leader', leader],
    ] as const) {
      await cluster.kill(node);
      act(`kill -9 ${node} (${role})`);
      await sleep(opts.phaseMs);
      if (role === 'follower') {
        // a signal, not a phase length: two of three replicas still acknowledge, so a hit sent with the
        // follower down is answered 200 before it returns (at once in practice; waited for on a slow machine)
        const killedAt = actions.at(-1)!.atMs;
        await until(
          'a hit acknowledged with the follower down',
          async () => load.answered().some((h) => h.startMs > killedAt && h.status === 200),
          (acknowledged) => acknowledged,
          60_000,
        );
        act(`a hit acknowledged with ${node} down`);
      }
      await cluster.restart(node);
      act(`restarted ${node}`);
      await allCurrent();
      act('all three replicas current');
      await sleep(opts.phaseMs);
    }
    const hits = await load.stop();
    const loadEnd = Date.now();
    const acknowledged = hits.filter((h) => h.status === 200).map((h) => h.contentId);
    say(
      `load done: ${hits.length} requests, ${acknowledged.length} acknowledged; waiting for the consumer to write them`,
    );

    await until(
      'every acknowledged event reported',
      () => reports.total(),
      (n) => n >= acknowledged.length,
      120_000,
    );
    const drainMs = Date.now() - loadEnd;
    const counted = await reports.countsByContentId(hits.map((h) => h.contentId));
    const { lost, duplicated } = checkCounts(acknowledged, counted);
    return {
      summary: summarizeLoad(hits),
      hits,
      acknowledged: acknowledged.length,
      lost,
      duplicated,
      actions,
      serviceLog: serviceLogTimeline(service.output(), wallStart),
      drainMs,
    };
  } catch (err) {
    // what the service said is the first thing to read when the scenario fails
    const said = service
      ? serviceLogTimeline(service.output(), Date.now()).map((g) => `  ${g.level} x${g.count}: ${g.what}`)
      : [];
    const writer = await cluster
      ?.consumerState(names.EVENTS_STREAM, names.CONSUMER_DURABLE)
      .catch((e: unknown) => String(e));
    throw new Error(
      `${err instanceof Error ? err.message : String(err)}\nwriter consumer: ${JSON.stringify(writer)}\nthe service logged:\n${said.join('\n')}`,
    );
  } finally {
    await service?.stop('SIGTERM');
    await cluster?.stop();
  }
}
