import { consumerSettled, startEventsHarness, uniqueTag, type EventsHarness } from '../../test/support/events-harness';

// The test plays the trusted proxy in front of ingest: X-Forwarded-For names the client.
let h: EventsHarness;

beforeAll(async () => {
  // a token back every 1,000 s: what a bucket allows is its burst, however long a busy machine
  // takes to send the hits (at 1 per second a slow run would earn extra tokens)
  h = await startEventsHarness({
    PIXEL_TRUSTED_PROXY_HOPS: '1',
    PIXEL_RATE_PER_IP: '0.001',
    PIXEL_BURST_PER_IP: '10',
    PIXEL_RATE_PER_OWNER: '0.001',
    PIXEL_BURST_PER_OWNER: '25',
  });
});
afterAll(async () => {
  await h.stop();
});

const from = (ip: string) => ({ headers: { 'x-forwarded-for': ip } });
async function metric(name: string): Promise<number> {
  const text = await (await fetch(`${h.baseUrl}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith(name))
    .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
}
/** Every published hit is stored (or dead-lettered) and acknowledged: counts are final. */
const settle = () => consumerSettled(h);

describe('flood limits on the pixel', () => {
  test('when one address floods, then it is limited (still answered with the GIF, not stored) while another address is served normally', async () => {
    const owner = await h.registerOwner();
    const flood = uniqueTag('flood');
    const calm = uniqueTag('calm');
    const limitedBefore = await metric('events_pixel_rate_limited_total{scope="ip"');
    const flooded = [];
    for (let i = 0; i < 30; i++)
      flooded.push(
        (await h.pixel({ owner_id: owner, name: 'impression', content_id: flood }, from('203.0.113.1'))).status,
      );
    const served = [];
    for (let i = 0; i < 5; i++)
      served.push(
        (await h.pixel({ owner_id: owner, name: 'impression', content_id: calm }, from('203.0.113.2'))).status,
      );
    expect(flooded.every((s) => s === 200)).toBe(true);
    expect(served).toEqual([200, 200, 200, 200, 200]);
    await h.waitForStored(5, { content_id: calm });
    await settle();
    // the burst of 10, the other 20 limited
    expect((await h.storedEvents({ content_id: flood })).length).toBe(10);
    expect((await h.storedEvents({ content_id: calm })).length).toBe(5);
    expect(await metric('events_pixel_rate_limited_total{scope="ip"')).toBe(limitedBefore + 20);
  });

  test('when a limited address clicks a link with an allowed r, then it is still redirected (navigation never breaks), and the click is not stored', async () => {
    const owner = await h.registerOwner(undefined, ['shop.example']);
    const content_id = uniqueTag('click');
    for (let i = 0; i < 12; i++) await h.pixel({ owner_id: owner, name: 'impression' }, from('203.0.113.3'));
    const res = await h.pixel(
      { owner_id: owner, name: 'click', content_id, r: 'https://shop.example/offer' },
      from('203.0.113.3'),
    );
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('https://shop.example/offer');
    expect(await h.storedAfterMarker(owner, { content_id })).toEqual([]);
  });

  test('when one owner_id is flooded from many addresses, then that owner is limited while other owners are served normally', async () => {
    const victim = await h.registerOwner();
    const other = await h.registerOwner();
    const flood = uniqueTag('owner-flood');
    const calm = uniqueTag('owner-calm');
    const limitedBefore = await metric('events_pixel_rate_limited_total{scope="owner"');
    for (let i = 0; i < 40; i++)
      await h.pixel({ owner_id: victim, name: 'impression', content_id: flood }, from(`198.51.100.${i + 1}`));
    for (let i = 0; i < 5; i++)
      await h.pixel({ owner_id: other, name: 'impression', content_id: calm }, from(`192.0.2.${i + 1}`));
    await h.waitForStored(5, { content_id: calm });
    await settle();
    // the owner's burst of 25, the other 15 limited
    expect((await h.storedEvents({ content_id: flood })).length).toBe(25);
    expect(await metric('events_pixel_rate_limited_total{scope="owner"')).toBe(limitedBefore + 15);
  });

  test('when one IPv6 /64 floods from a different address every hit, then its addresses share one bucket while another /64 is served normally', async () => {
    const owner = await h.registerOwner();
    const flood = uniqueTag('flood64');
    const calm = uniqueTag('calm64');
    // compressed, expanded and upper-case spellings of addresses in 2001:db8:64:1::/64
    const spell = (i: number) =>
      i % 3 === 0
        ? `2001:db8:64:1::${i + 1}`
        : i % 3 === 1
          ? `2001:0DB8:0064:0001:0000:0000:00ff:${(i + 1).toString(16)}`
          : `2001:db8:64:1:${i + 1}::1`;
    for (let i = 0; i < 30; i++)
      await h.pixel({ owner_id: owner, name: 'impression', content_id: flood }, from(spell(i)));
    for (let i = 0; i < 5; i++)
      expect(
        (await h.pixel({ owner_id: owner, name: 'impression', content_id: calm }, from(`2001:db8:64:2::${i + 1}`)))
          .status,
      ).toBe(200);
    await h.waitForStored(5, { content_id: calm });
    await settle();
    expect((await h.storedEvents({ content_id: flood })).length).toBe(10);
  });

  test('when an IPv4 client arrives as IPv4-mapped IPv6 too, then both spellings share its bucket', async () => {
    const owner = await h.registerOwner();
    const content_id = uniqueTag('mapped');
    for (let i = 0; i < 20; i++)
      await h.pixel(
        { owner_id: owner, name: 'impression', content_id },
        from(i % 2 === 0 ? '203.0.113.64' : '::ffff:203.0.113.64'),
      );
    await settle();
    expect((await h.storedEvents({ content_id })).length).toBe(10);
  });

  test('when a client forges X-Forwarded-For entries, then only the address the trusted proxy appended counts', async () => {
    const owner = await h.registerOwner();
    const content_id = uniqueTag('forged');
    // a different forged left-hand entry every time, the same real client: still one bucket
    for (let i = 0; i < 20; i++)
      await h.pixel({ owner_id: owner, name: 'impression', content_id }, from(`10.9.9.${i}, 203.0.113.9`));
    await settle();
    expect((await h.storedEvents({ content_id })).length).toBe(10);
  });
});
