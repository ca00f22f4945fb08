import Joi from 'joi';
import { EVENT_BATCH_LIMITS } from '@cm/contracts';
import { canonicalZone, MAX_ZONES, zoneDayProblem } from './rollups/zone-days';
import {
  ConfigError,
  OPERATOR_TOKEN_ADVICE,
  baseConfigSchema,
  configSchema,
  loadConfig,
  operatorTokenProblems,
  optionalSetting,
  setting,
  type ConfigOf,
} from '@cm/platform';

const GIB = 1024 ** 3;

type EventsRole = 'ingest' | 'consumer' | 'reporting' | 'rollup';

const name = Joi.string().pattern(/^[A-Za-z0-9_-]{1,64}$/);
/** A zone whose days can be rollup units (zone-days.ts), in Intl's spelling. */
const rollupZone = Joi.string()
  .pattern(/^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/)
  .custom((value: string, helpers) => {
    const problem = zoneDayProblem(value);
    return problem ? helpers.message({ custom: `${value} ${problem}` }) : canonicalZone(value);
  });
const subject = Joi.string().pattern(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/);

const settings = {
  ...baseConfigSchema,
  /** Comma list of roles this process runs; all four by default (local use). */
  EVENTS_ROLES: setting<EventsRole[]>(
    Joi.array()
      .items(Joi.string().valid('ingest', 'consumer', 'reporting', 'rollup'))
      .min(1)
      .unique()
      .single()
      .default(['ingest', 'consumer', 'reporting', 'rollup']),
  ),
  EVENTS_PORT: Joi.number().port().default(3001),
  MONGO_DB: name.default('events'),
  OWNER_REGISTRY_BUCKET: name.default('owner_registry'),
  /** Replicas of the registry bucket when this service creates it (3 on a JetStream cluster). */
  OWNER_REGISTRY_REPLICAS: Joi.number().integer().valid(1, 3, 5).default(1),
  /** KV bucket of campaigns the reporting role mirrors (management writes it), and its replicas when this service creates it. */
  CAMPAIGN_REGISTRY_BUCKET: name.default('campaign_registry'),
  CAMPAIGN_REGISTRY_REPLICAS: Joi.number().integer().valid(1, 3, 5).default(1),
  /** JetStream stream holding pixel events, and the subject prefix it binds (`<prefix>.>`). */
  EVENTS_STREAM: name.default('EVENTS'),
  EVENTS_SUBJECT_PREFIX: subject.default('events.v1'),
  EVENTS_DEAD_LETTER_SUBJECT: subject.default('events_dlq.v1'),
  EVENTS_STREAM_REPLICAS: Joi.number().integer().valid(1, 3, 5).default(1),
  EVENTS_STREAM_MAX_AGE_HOURS: Joi.number().integer().min(1).default(72),
  /** Byte and message limits of the events stream (discard new: past them the pixel answers 503). */
  EVENTS_STREAM_MAX_BYTES: Joi.number()
    .integer()
    .min(-1)
    .default(8 * GIB),
  EVENTS_STREAM_MAX_MSGS: Joi.number().integer().min(-1).default(20_000_000),
  EVENTS_DEDUPE_WINDOW_SECONDS: Joi.number().integer().min(120).default(300),
  // a leader election of a JetStream cluster takes 4-9 s: a pixel hit waits it out
  /** A pixel hit is answered within this long: 200 once its batch is acknowledged, else 503. Attempts repeat under the same message id until then. */
  PUBLISH_TIMEOUT_MS: Joi.number().integer().min(50).max(30000).default(10000),
  /** How long one publish attempt waits for the stream's ack before it is sent again. */
  PUBLISH_ATTEMPT_TIMEOUT_MS: Joi.number()
    .integer()
    .min(50)
    .max(30000)
    .default((parent: { PUBLISH_TIMEOUT_MS: number }) => Math.min(1000, parent.PUBLISH_TIMEOUT_MS)),
  /** Group commit: messages in flight at once; events arriving meanwhile wait and go out together. */
  INGEST_PUBLISH_WINDOW: Joi.number().integer().min(1).max(64).default(2),
  /** Group commit: at most this many events and bytes in one JetStream message. */
  INGEST_BATCH_MAX_EVENTS: Joi.number().integer().min(1).max(EVENT_BATCH_LIMITS.maxEvents).default(200),
  // a single event is at most ~90 KB encoded: the floor keeps room for it, the cap keeps messages under NATS's 1 MB payload
  INGEST_BATCH_MAX_BYTES: Joi.number()
    .integer()
    .min(128 * 1024)
    .max(512 * 1024)
    .default(256 * 1024),
  /** Events waiting for a publish slot beyond which new hits get 503 at once (memory bound). */
  INGEST_MAX_WAITING_EVENTS: Joi.number().integer().min(1).default(50_000),
  /** Flood limits of the ingest role, per process: sustained hits per second (0 = off) and burst, per client address and per owner. */
  PIXEL_RATE_PER_IP: Joi.number().min(0).default(50),
  PIXEL_BURST_PER_IP: Joi.number().integer().min(1).default(200),
  PIXEL_RATE_PER_OWNER: Joi.number().min(0).default(2000),
  PIXEL_BURST_PER_OWNER: Joi.number().integer().min(1).default(20_000),
  /** Trusted proxies in front that append the client address to X-Forwarded-For (0: use the socket peer): every per-client limit of the service (pixel flood limits, failed API key lookups) keys on the client it yields. */
  PIXEL_TRUSTED_PROXY_HOPS: Joi.number().integer().min(0).max(10).default(0),
  /** HMAC key of the `vid` pixel parameter's visitor hash (at least 32 characters). Required in production for the ingest role; a new key makes every vid a new visitor. */
  VISITOR_ID_KEY: optionalSetting(Joi.string().min(32)),
  /** How long one salt of cookieless visitor hashes lives (UTC day, ISO week or month); it is erased when the period ends. */
  VISITOR_SALT_PERIOD: setting<'day' | 'week' | 'month'>(Joi.string().valid('day', 'week', 'month').default('day')),
  /** JetStream key-value bucket holding the current salt, shared by every ingest process. */
  VISITOR_SALT_BUCKET: name.default('visitor_salts'),
  /**
   * The country database (a MaxMind DB `.mmdb` file with country codes) the ingest role looks the
   * client address up in; unset: the bundled DB-IP Lite file; `none`: events get no country. A
   * missing or unusable file stops the start.
   */
  COUNTRY_DB_PATH: optionalSetting(Joi.string().min(1).max(4096)),
  /** How often the ingest role looks at the country file and loads it again when it changed (0: never). */
  COUNTRY_DB_RELOAD_INTERVAL_MS: Joi.number().integer().min(0).max(86_400_000).default(60_000),
  CONSUMER_DURABLE: name.default('events-writer'),
  CONSUMER_BATCH_SIZE: Joi.number().integer().min(1).max(10000).default(500),
  CONSUMER_MAX_WAIT_MS: Joi.number().integer().min(10).max(60000).default(200),
  CONSUMER_ACK_WAIT_MS: Joi.number().integer().min(1000).default(30000),
  /** Server-side bound on delivered-but-unacked messages across all consumer instances. */
  CONSUMER_MAX_ACK_PENDING: Joi.number().integer().min(1).default(20000),
  /** Refusals of one event by the database itself (not outages, timeouts or a full store) before it is dead-lettered. */
  CONSUMER_MAX_WRITE_ATTEMPTS: Joi.number().integer().min(1).default(10),
  /** Delay of the first nak after a MongoDB failure; doubles per delivery up to the max. */
  CONSUMER_RETRY_BASE_MS: Joi.number().integer().min(10).default(1000),
  CONSUMER_RETRY_MAX_MS: Joi.number().integer().min(10).default(60000),
  /** The dead-letter stream keeps undecodable messages this long for inspection, and at most this many bytes (oldest go first). */
  EVENTS_DLQ_MAX_AGE_HOURS: Joi.number().integer().min(1).default(720),
  EVENTS_DLQ_MAX_BYTES: Joi.number().integer().min(-1).default(GIB),
  /** Write concern of event inserts: acknowledged by a majority (or this many members), journaled. */
  EVENTS_WRITE_CONCERN_W: setting<'majority' | number>(
    Joi.alternatives(Joi.string().valid('majority'), Joi.number().integer().min(1).max(50)).default('majority'),
  ),
  EVENTS_WRITE_CONCERN_J: Joi.boolean().default(true),
  /** Collections are `<prefix>_YYYYMMDD` (UTC day). */
  BUCKET_PREFIX: name.default('events'),
  RETENTION_DAYS: Joi.number().integer().min(1).default(400),
  RETENTION_INTERVAL_MS: Joi.number().integer().min(1000).default(3_600_000),
  REPORT_RATE_LIMIT_PER_MINUTE: Joi.number().integer().min(1).default(120),
  REPORT_MAX_RANGE_DAYS: Joi.number().integer().min(1).max(4000).default(400),
  /** maxTimeMS of each bucket's report aggregation; past it the report is a 503. */
  REPORT_QUERY_TIMEOUT_MS: Joi.number().integer().min(100).default(30000),
  /** How long an API key lookup is cached: another process honours a revoked key at most this long. */
  API_KEY_CACHE_TTL_MS: Joi.number().integer().min(1000).max(600000).default(30000),
  /** Failed API key lookups allowed per client address and minute (sustained and burst); then 429. */
  API_KEY_FAILED_LOOKUPS_PER_MINUTE: Joi.number().integer().min(1).default(30),
  /** One overall deadline per report; past it the report is a 503. */
  REPORT_DEADLINE_MS: Joi.number().integer().min(100).max(600000).default(30000),
  /** Groups (series rows) a report may return; more is a 400 suggesting limit or a filter. */
  REPORT_MAX_GROUPS: Joi.number().integer().min(1).max(1_000_000).default(10000),
  /** Groups a top-N report (`limit`) may rank in memory. */
  REPORT_MAX_RANKED_GROUPS: Joi.number().integer().min(1).max(5_000_000).default(200000),
  /** Row times a series may have (interval x range). */
  REPORT_MAX_BUCKETS: Joi.number().integer().min(1).max(100_000).default(10000),
  /** Reports one API key may run at the same time in one process; more are 429. */
  REPORT_CONCURRENCY_PER_KEY: Joi.number().integer().min(1).max(100).default(2),
  /**
   * The privacy floor of country rows: a report never shows a country reached by fewer distinct
   * visitors than this (those rows fold into one `below_floor` row; a report filtered by a country
   * withholds such rows' numbers). A handful of visitors from one country on one page and day can
   * name people, and the publisher may know them: 10 keeps such rows out of dashboards and exports
   * while every country with a real audience still shows. 0 turns the floor off: only for an
   * operator whose report readers may see the individual visitors anyway (the publisher itself,
   * with its own logs, under its own privacy terms).
   */
  REPORT_COUNTRY_FLOOR: Joi.number().integer().min(0).max(1_000_000).default(10),
  /** Rollup builder: pause between passes once caught up. */
  ROLLUP_INTERVAL_MS: Joi.number().integer().min(50).default(1000),
  /** A unit is built once it ended this long ago. */
  ROLLUP_GRACE_MS: Joi.number().integer().min(0).default(60000),
  /** A write started but unfinished (and no longer refreshed) this long is presumed dead (the builder then builds over it); at least a minute, so the insert bound and the refresh interval fit well inside it. */
  ROLLUP_ABANDON_MS: Joi.number().integer().min(60000).default(600000),
  /** Dirty units one builder pass looks at per level. */
  ROLLUP_BATCH_UNITS: Joi.number().integer().min(1).max(100000).default(500),
  /** Cells one owner may have in one rollup family of one unit: past it that family of the owner is read from raw events there (one tenant's flood bounds the builder's memory, never fails others). */
  ROLLUP_MAX_CELLS_PER_OWNER: Joi.number().integer().min(100).max(10_000_000).default(100_000),
  /** Builder threads of the rollup role, each building its share of the units on its own core and connection (1: the builder runs in the main thread). */
  ROLLUP_THREADS: Joi.number().integer().min(1).max(16).default(1),
  /** Old-generation heap of each rollup thread, MiB (0: Node's default); the pod's memory limit must hold every thread's. */
  ROLLUP_THREAD_HEAP_MB: Joi.number().integer().min(0).max(65_536).default(0),
  /** Decoded rollup pages a reporting process keeps between reports (MiB; 0: none). */
  REPORT_PAGE_CACHE_MB: Joi.number().integer().min(0).max(65_536).default(64),
  /**
   * The oldest rollup marks a report may plan with (ms): the reporting process holds the marks
   * reports ask for and reads them again every half of this while reports keep coming, so a
   * report makes no store call when its pages are cached. A report counts every event stored at
   * least this long before it was asked. 0: every report reads the marks from the store.
   */
  REPORT_MARKS_MAX_AGE_MS: Joi.number().integer().min(0).max(10_000).default(250),
  /**
   * IANA zones whose local days are rollup units of their own (comma list, at most MAX_ZONES): a
   * day series in such a zone reads one unit per day instead of 6 to 9. Each costs a mark per
   * day on every write and a day's cells more (operations.md). Only zones whose offset is a whole
   * number of hours (since 1970): their days are whole UTC hours. Empty by default.
   */
  ROLLUP_ZONES: setting<string[]>(Joi.array().items(rollupZone).max(MAX_ZONES).unique().single().default([])),
  /** Rollups are kept this many days (at least RETENTION_DAYS; 0 = the same as RETENTION_DAYS). */
  ROLLUP_RETENTION_DAYS: Joi.number().integer().min(0).default(0),
  BODY_LIMIT: Joi.string()
    .pattern(/^\d+(b|kb|mb)$/)
    .default('32kb'),
};

export type EventsConfig = ConfigOf<typeof settings>;

const schema = configSchema(settings);

export function loadEventsConfig(env: NodeJS.ProcessEnv): EventsConfig {
  const raw = { ...env };
  if (typeof raw.EVENTS_ROLES === 'string')
    (raw as Record<string, unknown>).EVENTS_ROLES = raw.EVENTS_ROLES.split(',').map((s) => s.trim());
  if (typeof raw.ROLLUP_ZONES === 'string')
    (raw as Record<string, unknown>).ROLLUP_ZONES = raw.ROLLUP_ZONES.split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  const config = loadConfig(schema, raw);
  // a DLQ subject inside the events stream would feed dead letters back to the consumer forever
  if (config.EVENTS_DEAD_LETTER_SUBJECT.startsWith(`${config.EVENTS_SUBJECT_PREFIX}.`)) {
    throw new ConfigError(
      'invalid configuration:\n  EVENTS_DEAD_LETTER_SUBJECT: must not be under EVENTS_SUBJECT_PREFIX',
    );
  }
  if (config.PUBLISH_ATTEMPT_TIMEOUT_MS > config.PUBLISH_TIMEOUT_MS) {
    throw new ConfigError('invalid configuration:\n  PUBLISH_ATTEMPT_TIMEOUT_MS: must not exceed PUBLISH_TIMEOUT_MS');
  }
  if (config.ROLLUP_RETENTION_DAYS !== 0 && config.ROLLUP_RETENTION_DAYS < config.RETENTION_DAYS) {
    // a rollup dropped before its raw day would only make reports slower; keeping it longer is the point
    throw new ConfigError(
      'invalid configuration:\n  ROLLUP_RETENTION_DAYS: must be 0 (same as RETENTION_DAYS) or at least RETENTION_DAYS',
    );
  }
  if (config.CONSUMER_MAX_ACK_PENDING < 3 * config.CONSUMER_BATCH_SIZE) {
    // one batch is written, one waits and one is being fetched: the server must let all three be in flight
    throw new ConfigError(
      'invalid configuration:\n  CONSUMER_MAX_ACK_PENDING: must be at least 3 x CONSUMER_BATCH_SIZE',
    );
  }
  refuseWeakDurabilityInProduction(config);
  refuseMissingVisitorKeyInProduction(config);
  return config;
}

/** Without its own key a deployment's vid hashes could be recomputed by anyone who has the code. */
function refuseMissingVisitorKeyInProduction(config: EventsConfig): void {
  if (config.NODE_ENV !== 'production') return;
  const key = config.VISITOR_ID_KEY;
  // a role that does not hash may go without the key, but a key that is set must be a real one
  if (key === undefined && !config.EVENTS_ROLES.includes('ingest')) return;
  if (key === undefined)
    throw new ConfigError(
      `invalid configuration:\n  VISITOR_ID_KEY: is required in production for the ingest role. ${OPERATOR_TOKEN_ADVICE}`,
    );
  const problems = operatorTokenProblems(key);
  // never echo the key itself: the message lands in logs
  if (problems.length > 0)
    throw new ConfigError(
      `invalid configuration:\n  VISITOR_ID_KEY: is not safe for production: ${problems.join('; ')}. ${OPERATOR_TOKEN_ADVICE}`,
    );
}

/** An event is acknowledged to JetStream only after its insert: a weaker write concern could lose acknowledged events on failover. */
function refuseWeakDurabilityInProduction(config: EventsConfig): void {
  if (config.NODE_ENV !== 'production') return;
  const problems: string[] = [];
  if (!config.EVENTS_WRITE_CONCERN_J)
    problems.push(
      '  EVENTS_WRITE_CONCERN_J: false is refused in production (events would be acknowledged before they are journaled)',
    );
  // a member count may be below the replica set's majority, which this process cannot know at start
  if (config.EVENTS_WRITE_CONCERN_W !== 'majority')
    problems.push(
      '  EVENTS_WRITE_CONCERN_W: only majority is accepted in production (a member count may be below the majority)',
    );
  if (problems.length > 0) throw new ConfigError(`invalid configuration:\n${problems.join('\n')}`);
}
