import type { EventMessage } from '@cm/contracts';
import { ValidationError } from '@cm/platform';
import type { OwnerLookup } from '../registry/owner-registry-watcher';
import type { DeviceDetector } from './device-detector';
import { parsePixelEvent, type RawParams } from './pixel-params';

export interface EventSink {
  readonly available: boolean;
  publish(msg: EventMessage): Promise<void>;
  roundTrip(): Promise<void>;
}

export type IngestResult =
  | { kind: 'stored'; id: string; bot: boolean }
  | { kind: 'unknown_owner' }
  | { kind: 'invalid'; error: ValidationError }
  | { kind: 'unavailable'; reason: string };

export interface PixelIngestDeps {
  owners: OwnerLookup;
  sink: EventSink;
  devices: DeviceDetector;
  newId: () => string;
  /** Told how long each acknowledged publish took (seconds). */
  onPublished?: (seconds: number) => void;
}

/**
 * The story of one pixel hit: validate, check the broker and the owner, classify the device,
 * publish and wait for the ack. Returns what happened; the HTTP layer picks the response.
 */
export class PixelIngest {
  constructor(private readonly deps: PixelIngestDeps) {}

  async record(params: RawParams, userAgent: string | undefined, referer: string | undefined): Promise<IngestResult> {
    let event;
    try {
      event = parsePixelEvent(params, referer);
    } catch (err) {
      if (err instanceof ValidationError) return { kind: 'invalid', error: err };
      throw err;
    }
    const { owners, sink, devices } = this.deps;
    // checked before the owner so that an outage answers alike for known and unknown owners
    if (!sink.available) return { kind: 'unavailable', reason: 'broker disconnected' };
    if (!owners.isReady()) return { kind: 'unavailable', reason: 'owner registry not loaded yet' };
    if (!owners.has(event.owner_id)) {
      // a server round trip, so the answer does not come measurably sooner than a stored hit
      await sink.roundTrip().catch(() => undefined);
      return { kind: 'unknown_owner' };
    }
    const device = devices.detect(userAgent);
    const msg: EventMessage = {
      v: 1,
      id: this.deps.newId(),
      owner_id: event.owner_id,
      name: event.name,
      url: event.url,
      content_id: event.content_id,
      device_type: device.device_type,
      bot: device.bot,
      metadata: event.metadata,
      created: new Date().toISOString(),
    };
    try {
      const started = process.hrtime.bigint();
      await sink.publish(msg);
      this.deps.onPublished?.(Number(process.hrtime.bigint() - started) / 1e9);
      return { kind: 'stored', id: msg.id, bot: msg.bot };
    } catch (err) {
      return { kind: 'unavailable', reason: err instanceof Error ? err.message : String(err) };
    }
  }
}
