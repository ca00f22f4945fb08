import { JetStreamApiCodes, JetStreamApiError, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { UnavailableError, type NatsConnection } from '@cm/platform';
import { consumerStatusView, deadLetterStatusView, streamStatusView, type PipelineView } from './pipeline-view';

/** The JetStream objects to inspect, named by stream-config.ts (never spelled out here). */
export interface PipelineNames {
  stream: string;
  consumer: string;
  deadLetterStream: string;
}

function isNotFound(err: unknown): boolean {
  return (
    err instanceof JetStreamApiError &&
    (err.code === JetStreamApiCodes.StreamNotFound ||
      err.code === JetStreamApiCodes.ConsumerNotFound ||
      err.status === 404)
  );
}

/** A missing optional object is null; any other failure propagates. */
async function orNull<T>(lookup: Promise<T>): Promise<T | null> {
  try {
    return await lookup;
  } catch (err) {
    if (isNotFound(err)) return null;
    throw err;
  }
}

/**
 * Reads stream and consumer state from the JetStream API (`streams.info`, `consumers.info`):
 * three small requests per call, nothing cached, so the operator always sees the current lag.
 */
export class PipelineInspector {
  private manager?: Promise<JetStreamManager>;

  constructor(
    private readonly nc: NatsConnection,
    private readonly names: PipelineNames,
  ) {}

  async status(): Promise<PipelineView> {
    const { stream, consumer, deadLetterStream } = this.names;
    try {
      const jsm = await this.jsm();
      const [streamInfo, consumerInfo, dlqInfo] = await Promise.all([
        orNull(jsm.streams.info(stream)),
        orNull(jsm.consumers.info(stream, consumer)),
        orNull(jsm.streams.info(deadLetterStream)),
      ]);
      // every events process creates the stream at start: its absence means the broker lost it
      if (!streamInfo) throw new UnavailableError(`stream ${stream} does not exist`);
      return {
        stream: streamStatusView(streamInfo),
        consumer: consumerInfo ? consumerStatusView(consumerInfo) : null,
        dead_letters: dlqInfo ? deadLetterStatusView(dlqInfo) : null,
      };
    } catch (err) {
      if (err instanceof UnavailableError) throw err;
      this.manager = undefined;
      throw new UnavailableError(`JetStream did not answer: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** Made once; checkAPI off because the service verified JetStream at start (ensureStreams). */
  private jsm(): Promise<JetStreamManager> {
    this.manager ??= jetstreamManager(this.nc, { checkAPI: false });
    return this.manager;
  }
}
