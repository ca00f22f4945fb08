import type { Router } from 'express';
import type { Db } from 'mongodb';
import { prom, type Logger, type Registry } from '@cm/platform';
import type { ManagementConfig } from '../config';
import { contentRoutes } from '../content/content-routes';
import { ContentService, type HostsChanged } from '../content/content-service';
import { MongoContentStore } from '../content/content-store';
import type { PageCursors } from '../pagination/page-cursors';
import type { HostPlacement } from '../redirect-hosts/redirect-host-service';
import { fetchPageTitle } from '../title/page-title-fetch';
import { TitleFetcher } from '../title/title-fetcher';
import { campaignRoutes } from './campaign-routes';
import { CampaignService, type CampaignChanged, type TimezoneOf } from './campaign-service';
import { MongoCampaignStore } from './campaign-store';

/** Title fetches running at once, and waiting at most, per process. */
const TITLE_FETCH_CONCURRENCY = 4;
const TITLE_FETCH_MAX_QUEUE = 1000;
/** stop() lets in-flight title fetches run this long before aborting them (they stay pending for the next start). */
const TITLE_FETCH_STOP_GRACE_MS = 2000;

export interface CampaignFeatureDeps {
  db: Db;
  logger: Logger;
  config: Pick<
    ManagementConfig,
    | 'TITLE_FETCH_TIMEOUT_MS'
    | 'TITLE_FETCH_MAX_BYTES'
    | 'TITLE_FETCH_MAX_REDIRECTS'
    | 'TITLE_FETCH_ALLOW_LOOPBACK'
    | 'TITLE_FETCH_ALLOWED_PORTS'
    | 'QUOTA_CAMPAIGNS_PER_USER'
    | 'QUOTA_CONTENT_PER_CAMPAIGN'
  >;
  /** The owner's IANA time zone, built by the composition root from the user store (this feature never reads users). */
  timezoneOf: TimezoneOf;
  /** Content URLs of the owner were added or removed: its registry record changes (this feature never writes users). */
  hostsChanged: HostsChanged;
  /** A campaign's record changed (created, edited, deleted, content added or removed): the campaign registry publishes it. */
  campaignChanged: CampaignChanged;
  /** Whether a content URL with this host still fits into the owner's registry record. */
  placeForHost(ownerId: string, host: string): Promise<HostPlacement>;
  /** The owner's current record revision (a content add checks nothing changed it concurrently). */
  recordRevision(ownerId: string): Promise<number | undefined>;
  /** Signs the list's page cursors. */
  cursors: PageCursors;
  metrics: Registry;
  now?: () => Date;
}

export interface CampaignFeature {
  /** Campaign and content routes, mounted under /api/v3 behind bearer auth. */
  routers: Router[];
  /** The distinct redirect hosts of an owner's content URLs. */
  contentHosts(ownerId: string): Promise<string[]>;
  /** The same for many owners at once. */
  contentHostsByOwner(ownerIds: string[]): Promise<Map<string, string[]>>;
  /** Gives items stored before redirect hosts existed their host; returns how many. */
  backfillHosts(): Promise<number>;
  /** Gives items stored before canonical URLs existed theirs, then starts background title fetching. */
  start(): Promise<void>;
  /** Stops background work (title fetches) and waits for what is in flight. */
  stop(): Promise<void>;
}

/** Campaigns, their content and background title fetching, wired together. */
export async function createCampaignFeature(deps: CampaignFeatureDeps): Promise<CampaignFeature> {
  const { config } = deps;
  const campaignStore = new MongoCampaignStore(deps.db);
  await campaignStore.init();
  const contentStore = new MongoContentStore(deps.db, config.QUOTA_CONTENT_PER_CAMPAIGN);
  const limits = {
    timeoutMs: config.TITLE_FETCH_TIMEOUT_MS,
    maxBytes: config.TITLE_FETCH_MAX_BYTES,
    maxRedirects: config.TITLE_FETCH_MAX_REDIRECTS,
    allowLoopback: config.TITLE_FETCH_ALLOW_LOOPBACK,
    allowedPorts: config.TITLE_FETCH_ALLOWED_PORTS,
  };
  const titleFetches = new prom.Counter({
    name: 'management_title_fetches_total',
    help: 'Background content title fetches by outcome (fetched, failed, queue_full)',
    labelNames: ['outcome'],
    registers: [deps.metrics],
  });
  const titles = new TitleFetcher({
    store: contentStore,
    fetchTitle: (url, stop) => fetchPageTitle(url, limits, stop),
    logger: deps.logger,
    concurrency: TITLE_FETCH_CONCURRENCY,
    maxQueue: TITLE_FETCH_MAX_QUEUE,
    stopGraceMs: TITLE_FETCH_STOP_GRACE_MS,
    onOutcome: (outcome) => titleFetches.inc({ outcome }),
  });
  const campaigns = new CampaignService({
    store: campaignStore,
    timezoneOf: deps.timezoneOf,
    hostsChanged: deps.hostsChanged,
    campaignChanged: deps.campaignChanged,
    maxCampaigns: config.QUOTA_CAMPAIGNS_PER_USER,
    cursors: deps.cursors,
    now: deps.now,
  });
  const content = new ContentService({
    store: contentStore,
    titles,
    timezoneOf: deps.timezoneOf,
    hostsChanged: deps.hostsChanged,
    campaignChanged: deps.campaignChanged,
    placeForHost: deps.placeForHost,
    recordRevision: deps.recordRevision,
    maxItemsPerCampaign: config.QUOTA_CONTENT_PER_CAMPAIGN,
    now: deps.now,
  });

  return {
    // Order matters: POST /campaign/:token (edit campaign) before POST /:campaign_token/:url_token (edit content).
    routers: [campaignRoutes(campaigns), contentRoutes(content)],
    contentHosts: (ownerId) => contentStore.distinctHosts(ownerId),
    contentHostsByOwner: (ownerIds) => contentStore.distinctHostsByOwner(ownerIds),
    backfillHosts: () => contentStore.backfillHosts(),
    async start() {
      // before anything else reads content: items from before page keys get theirs (once)
      const backfilled = await contentStore.backfillPageKeys();
      if (backfilled > 0) deps.logger.info('content page keys backfilled', { items: backfilled });
      await titles.start();
    },
    stop: () => titles.stop(),
  };
}
