import { Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { encodeOwnerRecord, ownerRegistryBucketOptions, type OwnerRecord } from '@cm/contracts';
import { uniqueName } from '@cm/testkit';
import {
  BROWSER_UA,
  SIGNAL_WAIT_MS,
  startEventsHarness,
  uniqueTag,
  waitUntil,
  type EventsHarness,
} from '../../../events/test/support/events-harness';
import { startManagementHarness, type ManagementHarness } from '../../test/support/management-harness';

// Cross-service: management's reconciliation removes an owner that has no user, and the events
// service (started through its own test harness, read-only use) stops storing that owner's events.
const RECONCILE_INTERVAL_MS = 1000;
const bucket = uniqueName('owners');
let nc: NatsConnection;
let events: EventsHarness;
let management: ManagementHarness | undefined;

const staleRecord = (id: string): OwnerRecord => ({
  owner_id: id,
  account_id: id,
  created_at: new Date().toISOString(),
  revision: 1,
  redirect_hosts: [],
});
let ids = 0;
const noSuchUser = () => `6${Date.now()}${++ids}`.slice(0, 15);

async function putStale(id: string): Promise<void> {
  const kv = await new Kvm(nc).create(bucket, ownerRegistryBucketOptions(1));
  await kv.put(id, encodeOwnerRecord(staleRecord(id)));
}

const hit = (ownerId: string, contentId: string) =>
  events.pixel(
    { owner_id: ownerId, name: 'impression', content_id: contentId },
    { headers: { 'user-agent': BROWSER_UA } },
  );

beforeAll(async () => {
  nc = await connect({ servers: process.env.NATS_URL! });
});
afterAll(async () => {
  await management?.stop();
  await events?.stop();
  await nc.close();
});

test('when the registry holds an owner without a user, then a reconcile pass removes it and the pixel stops storing its events', async () => {
  const beforeStart = noSuchUser();
  await putStale(beforeStart);
  events = await startEventsHarness({ OWNER_REGISTRY_BUCKET: bucket });
  await waitUntil(
    () => events.system.owners?.has(beforeStart) ?? false,
    SIGNAL_WAIT_MS,
    'the stale owner known to ingest',
  );
  const storedBefore = uniqueTag('before');
  expect((await hit(beforeStart, storedBefore)).status).toBe(200);
  await events.waitForStored(1, { content_id: storedBefore });

  // the start-up pass removes it
  management = await startManagementHarness({
    OWNER_REGISTRY_BUCKET: bucket,
    REGISTRY_RECONCILE_INTERVAL_MS: String(RECONCILE_INTERVAL_MS),
  });
  await waitUntil(
    () => !(events.system.owners?.has(beforeStart) ?? true),
    SIGNAL_WAIT_MS,
    'the stale owner gone from ingest after the start-up pass',
  );

  // one that appears later is removed by a periodic pass (the start-up pass is over): how soon
  // depends on the period and the machine, so the wait is generous and nothing is timed
  const later = noSuchUser();
  await putStale(later);
  await waitUntil(
    () => events.system.owners?.has(later) ?? false,
    SIGNAL_WAIT_MS,
    'the later stale owner known to ingest',
  );
  await waitUntil(
    () => !(events.system.owners?.has(later) ?? true),
    SIGNAL_WAIT_MS,
    'the later stale owner gone from ingest',
  );

  // hits for both are answered but not stored; a real user's hit sent after them is stored
  const owner = await management.createAccount();
  await waitUntil(
    () => events.system.owners?.has(owner.unique_id) ?? false,
    SIGNAL_WAIT_MS,
    'the real owner known to ingest',
  );
  const [droppedEarly, droppedLate, control] = [uniqueTag('dropped'), uniqueTag('dropped'), uniqueTag('control')];
  expect((await hit(beforeStart, droppedEarly)).status).toBe(200);
  expect((await hit(later, droppedLate)).status).toBe(200);
  expect((await hit(owner.unique_id, control)).status).toBe(200);
  await events.waitForStored(1, { content_id: control });
  expect(await events.storedEvents({ content_id: droppedEarly })).toEqual([]);
  expect(await events.storedEvents({ content_id: droppedLate })).toEqual([]);
  expect(await management.ownerRecord(beforeStart)).toMatchObject({ deleted: true, revision: 2 });
}, 120_000);
