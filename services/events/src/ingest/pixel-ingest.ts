import { copyAttribution, type EventRecord } from '@cm/contracts';
import { ValidationError, type TokenBuckets } from '@cm/platform';
import type { CountryLookup } from '../country/country-lookup';
import type { OwnerLookup } from '../registry/owner-registry-watcher';
import type { DeviceDetector } from './device-detector';
import type { EventSink } from './event-sink';
import { parsePixelEvent } from './pixel-params';
import type { RawParams } from './pixel-request';
import { decideRedirect } from './redirect-target';
import type { VisitorIdentity } from './visitor-identity';

/**
 * What happened to one pixel hit. `redirect` is the location of an `r` the owner allows (or
 * undefined): the answer follows it whatever happened to the event. When `r` is refused or cannot
 * be decided yet, nothing else is looked at.
 */
export type PixelOutcome =
  | { kind: 'bad_redirect'; message: string }
  | { kind: 'registry_loading' }
  | { kind: 'stored'; id: string; bot: boolean; redirect: string | undefined }
  | { kind: 'unknown_owner'; redirect: string | undefined }
  | { kind: 'rate_limited'; scope: 'ip' | 'owner'; redirect: string | undefined }
  | { kind: 'invalid'; error: ValidationError; redirect: string | undefined }
  | { kind: 'unavailable'; reason: string; redirect: string | undefined };

export interface PixelIngestDeps {
  owners: OwnerLookup;
  sink: EventSink;
  devices: DeviceDetector;
  newId: () => string;
  /** Flood limits: hits per client address, and per owner (a bucket each). */
  perClient: TokenBuckets;
  perOwner: TokenBuckets;
  visitors: VisitorIdentity;
  /** The visitor's country from the client address (the address itself is never part of the event). */
  countries: Pick<CountryLookup, 'of'>;
}

// shared by every hit without a redirect: the common outcomes cost no allocation
const REGISTRY_LOADING: PixelOutcome = { kind: 'registry_loading' };
const UNKNOWN_OWNER: PixelOutcome = { kind: 'unknown_owner', redirect: undefined };
const LIMITED_CLIENT: PixelOutcome = { kind: 'rate_limited', scope: 'ip', redirect: undefined };
const LIMITED_OWNER: PixelOutcome = { kind: 'rate_limited', scope: 'owner', redirect: undefined };

/**
 * The story of one pixel hit, every check in the order it runs: the redirect target, the event's
 * parameters, the broker, the owner registry, the flood limits, the owner; then classify the
 * device, publish and wait for the ack. Returns what happened; pixel-answer.ts picks the response.
 */
export class PixelIngest {
  constructor(private readonly deps: PixelIngestDeps) {}

  /** `client`: the flood-limit key of the client (addressKey); `address`: its full address, for the cookieless visitor hash and the country. */
  async record(
    params: RawParams,
    userAgent: string | undefined,
    referer: string | undefined,
    client: string,
    address: string,
  ): Promise<PixelOutcome> {
    const { owners, sink, devices, perClient, perOwner } = this.deps;
    // decided in memory before any I/O, so a refusal takes the same time for any owner
    const redirect = decideRedirect(params.get('r'), params.get('owner_id'), owners);
    if (redirect.kind === 'refused') return { kind: 'bad_redirect', message: redirect.message };
    if (redirect.kind === 'undecided') return REGISTRY_LOADING;
    const location = redirect.kind === 'allowed' ? redirect.location : undefined;

    let event;
    try {
      event = parsePixelEvent(params, referer);
    } catch (err) {
      if (err instanceof ValidationError) return { kind: 'invalid', error: err, redirect: location };
      throw err;
    }
    // checked before the owner so that an outage answers alike for known and unknown owners
    if (!sink.available) return { kind: 'unavailable', reason: 'broker disconnected', redirect: location };
    if (!owners.isReady()) return { kind: 'unavailable', reason: 'owner registry not loaded yet', redirect: location };
    const now = Date.now();
    if (!perClient.tryTake(client, now))
      return location === undefined ? LIMITED_CLIENT : { kind: 'rate_limited', scope: 'ip', redirect: location };
    if (!owners.has(event.owner_id)) {
      // a bounded server round trip, so the answer does not come measurably sooner than a stored hit
      try {
        await sink.roundTrip();
        return location === undefined ? UNKNOWN_OWNER : { kind: 'unknown_owner', redirect: location };
      } catch {
        return { kind: 'unavailable', reason: 'broker did not answer', redirect: location };
      }
    }
    // only known owners get a bucket: the key space is the registry, not whatever a sender invents
    if (!perOwner.tryTake(event.owner_id, now))
      return location === undefined ? LIMITED_OWNER : { kind: 'rate_limited', scope: 'owner', redirect: location };
    let visitor: number;
    try {
      const known = this.deps.visitors.of(event.owner_id, event.vid, address, userAgent ?? '');
      visitor = typeof known === 'number' ? known : await known;
    } catch {
      // never an unsalted hash: without this period's salt the hit fails as a publish would
      return { kind: 'unavailable', reason: 'visitor salt not available', redirect: location };
    }
    const device = devices.detect(userAgent);
    const record: EventRecord = {
      id: this.deps.newId(),
      owner_id: event.owner_id,
      name: event.name,
      url: event.url,
      content_id: event.content_id,
      device_type: device.device_type,
      bot: device.bot,
      metadata: event.metadata,
      created: new Date(now).toISOString(),
      visitor,
    };
    // set only when the hit carried some, so the message has no `measures` otherwise
    if (event.measures !== undefined) record.measures = event.measures;
    // looked up for stored hits only; set only when known, so an unknown country is no field at all
    const country = this.deps.countries.of(address);
    if (country !== undefined) record.country = country;
    // the same for attribution: only the fields the hit has
    if (event.attribution !== undefined) copyAttribution(event.attribution, record);
    try {
      await sink.publish(record);
      return { kind: 'stored', id: record.id, bot: record.bot, redirect: location };
    } catch (err) {
      return { kind: 'unavailable', reason: err instanceof Error ? err.message : String(err), redirect: location };
    }
  }
}
