import type { EventRecord } from '@cm/contracts';
import { toEventDocument } from './event-document';

const record: EventRecord = {
  id: '0196a3c2-7f10-7b2e-9c4d-2f6a8e1b3c5d',
  owner_id: '123456789012345',
  name: 'impression',
  url: 'https://news.example/world/2026/11/story?utm_source=newsletter#comments',
  content_id: 'article-42',
  device_type: 'mobile',
  bot: false,
  metadata: { campaign: 'spring' },
  created: '2026-11-22T10:20:30.123Z',
  visitor: 123456789,
};

describe('the stored event document', () => {
  test('when the event has a country, then the document has it', () => {
    expect(toEventDocument({ ...record, country: 'FR' }).country).toBe('FR');
  });

  test('when the country is unknown, then the document has no country field at all (never null)', () => {
    expect('country' in toEventDocument(record)).toBe(false);
  });
});
