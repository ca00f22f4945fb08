import { encodeEventRecord, type EventRecord } from '@cm/contracts';
import type { EventSink } from './event-sink';
import type { GroupCommitPublisher } from './group-commit-publisher';
import type { JetStreamSender } from './jetstream-sender';

/**
 * What the pixel publishes through: each event goes into the next group-commit message and the
 * promise resolves only when the stream has acknowledged that message, i.e. the event is durable.
 */
export class EventPublisher implements EventSink {
  constructor(
    private readonly sender: JetStreamSender,
    private readonly batches: GroupCommitPublisher,
    private readonly timeoutMs: number,
  ) {}

  start(): void {
    this.sender.start();
  }

  /** Answers every event already handed in (each batch acknowledged or past its deadline), then stops. */
  async stop(): Promise<void> {
    await this.batches.drain();
    this.sender.stop();
  }

  /**
   * False when the broker is gone for good (closed, or disconnected for longer than a publish
   * may wait): the pixel answers 503 at once. A shorter disconnect (a node restarting, the client
   * moving to another node of the cluster) is ridden out: events wait for the reconnect.
   */
  get available(): boolean {
    return !this.sender.closed && this.sender.disconnectedFor() < this.timeoutMs;
  }

  publish(event: EventRecord): Promise<void> {
    return this.batches.publish(encodeEventRecord(event));
  }

  /** One bounded round trip to the server, about as long as a publish ack (keeps timings alike). */
  roundTrip(): Promise<void> {
    return this.sender.roundTrip(this.timeoutMs);
  }
}
