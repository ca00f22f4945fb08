import type { EventRecord } from '@cm/contracts';
import { ValidationError, type TokenBuckets } from '@cm/platform';
import type { OwnerLookup } from '../registry/owner-registry-watcher';
import type { DeviceDetector } from './device-detector';
import type { EventSink } from './event-sink';
import { parsePixelEvent } from './pixel-params';
import type { RawParams } from './pixel-request';

export type IngestResult =
  | { kind: 'stored'; id: string; bot: boolean }
  | { kind: 'unknown_owner' }
  | { kind: 'rate_limited'; scope: 'ip' | 'owner' }
  | { kind: 'invalid'; error: ValidationError }
  | { kind: 'unavailable'; reason: string };

export interface PixelIngestDeps {
  owners: OwnerLookup;
  sink: EventSink;
  devices: DeviceDetector;
  newId: () => string;
  /** Flood limits: hits per client address, and per owner (a bucket each). */
  perClient: TokenBuckets;
  perOwner: TokenBuckets;
}

const UNKNOWN_OWNER: IngestResult = { kind: 'unknown_owner' };
const LIMITED_CLIENT: IngestResult = { kind: 'rate_limited', scope: 'ip' };
const LIMITED_OWNER: IngestResult = { kind: 'rate_limited', scope: 'owner' };

/**
 * The story of one pixel hit: validate, check the broker, the owner and the flood limits,
 * classify the device, publish and wait for the ack. Returns what happened; the HTTP layer
 * picks the response.
 */
export class PixelIngest {
  constructor(private readonly deps: PixelIngestDeps) {}

  async record(params: RawParams, userAgent: string | undefined, referer: string | undefined, client: string): Promise<IngestResult> {
    let event;
    try {
      event = parsePixelEvent(params, referer);
    } catch (err) {
      if (err instanceof ValidationError) return { kind: 'invalid', error: err };
      throw err;
    }
    const { owners, sink, devices, perClient, perOwner } = this.deps;
    // checked before the owner so that an outage answers alike for known and unknown owners
    if (!sink.available) return { kind: 'unavailable', reason: 'broker disconnected' };
    if (!owners.isReady()) return { kind: 'unavailable', reason: 'owner registry not loaded yet' };
    const now = Date.now();
    if (!perClient.tryTake(client, now)) return LIMITED_CLIENT;
    if (!owners.has(event.owner_id)) {
      // a bounded server round trip, so the answer does not come measurably sooner than a stored hit
      try {
        await sink.roundTrip();
        return UNKNOWN_OWNER;
      } catch {
        return { kind: 'unavailable', reason: 'broker did not answer' };
      }
    }
    // only known owners get a bucket: the key space is the registry, not whatever a sender invents
    if (!perOwner.tryTake(event.owner_id, now)) return LIMITED_OWNER;
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
    };
    try {
      await sink.publish(record);
      return { kind: 'stored', id: record.id, bot: record.bot };
    } catch (err) {
      return { kind: 'unavailable', reason: err instanceof Error ? err.message : String(err) };
    }
  }
}
