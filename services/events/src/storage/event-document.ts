import { copyAttribution, type Attribution, type DeviceType, type EventRecord, type Measures } from '@cm/contracts';

/**
 * One stored event. `_id` is the ingest-assigned UUIDv7, so a redelivered message cannot be stored
 * twice. The attribution fields (`utm_source`..`utm_term`, `referrer`: EventRecord's) are each
 * absent when the event has none, and on events stored before they existed.
 */
export interface EventDocument extends Attribution {
  _id: string;
  owner_id: string;
  name: string;
  url: string;
  content_id: string;
  device_type: DeviceType;
  bot: boolean;
  metadata: Record<string, string>;
  created: Date;
  /** The pseudonymous visitor hash (EventRecord.visitor); absent on events ingested before it existed. */
  visitor?: number;
  /** The numbers the hit carried (EventRecord.measures); absent when it carried none. */
  measures?: Measures;
  /** The visitor's country at ingest (EventRecord.country, ISO 3166-1 alpha-2); absent when unknown. Never the address. */
  country?: string;
}

export function toEventDocument(msg: EventRecord): EventDocument {
  const doc: EventDocument = {
    _id: msg.id,
    owner_id: msg.owner_id,
    name: msg.name,
    url: msg.url,
    content_id: msg.content_id,
    device_type: msg.device_type,
    bot: msg.bot,
    metadata: msg.metadata,
    created: new Date(msg.created),
    ...(msg.visitor === undefined ? {} : { visitor: msg.visitor }),
    ...(msg.measures === undefined ? {} : { measures: msg.measures }),
    ...(msg.country === undefined ? {} : { country: msg.country }),
  };
  copyAttribution(msg, doc);
  return doc;
}
