import { encodeEventMessage, eventSubject, type EventMessage } from '@cm/contracts';
import type { NatsConnection } from '@cm/platform';
import type { AckedPublisher } from './acked-publisher';

/**
 * Publishes pixel events to the JetStream stream with the event id as msgID, so a publish that
 * is retried inside the stream's duplicate window is stored once. Resolves only when the stream
 * has acknowledged, i.e. the event is durable.
 */
export class EventPublisher {
  private connected = true;

  constructor(
    private readonly nc: NatsConnection,
    private readonly acked: AckedPublisher,
    private readonly subjectPrefix: string,
  ) {}

  start(): void {
    this.acked.start();
    void this.trackConnection();
  }

  async stop(): Promise<void> {
    this.acked.stop();
  }

  /**
   * False while the client is disconnected: the pixel answers 503 at once instead of queueing a
   * publish that might reach the stream after the client was told it failed.
   */
  get available(): boolean {
    return this.connected && !this.nc.isClosed();
  }

  async publish(msg: EventMessage): Promise<void> {
    await this.acked.publish(eventSubject(this.subjectPrefix, msg.owner_id), encodeEventMessage(msg), msg.id);
  }

  /** One round trip to the server, about as long as a publish ack (used to keep timings alike). */
  async roundTrip(): Promise<void> {
    await this.nc.flush();
  }

  private async trackConnection(): Promise<void> {
    for await (const s of this.nc.status()) {
      if (s.type === 'disconnect') this.connected = false;
      else if (s.type === 'reconnect') this.connected = true;
    }
  }
}
