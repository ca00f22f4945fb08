import type { EventRecord } from '@cm/contracts';

/** Where the pixel hands an event to be made durable (EventPublisher in production). */
export interface EventSink {
  /** False when a publish could not succeed in time: the pixel answers 503 without trying. */
  readonly available: boolean;
  /** Resolves once the event is durable (its message acknowledged by the stream). */
  publish(event: EventRecord): Promise<void>;
  /** One bounded round trip to the broker, about as long as a publish ack. */
  roundTrip(): Promise<void>;
}
