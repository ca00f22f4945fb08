import { MongoClient } from 'mongodb';
import { UnavailableError } from '@cm/platform';
import { uniqueName } from '@cm/testkit';
import { parseReportRequest } from '../request/parse-report-request';
import { PlannedCountSource } from './planned-count-source';
import { readPlanOf } from './read-plan';

describe('PlannedCountSource', () => {
  // an open range lists the buckets before it plans; a closed one while it plans: the same answer
  test.each([
    ['an open range', { owner_id: '1' }],
    ['a closed range', { owner_id: '1', created__gte: '2026-10-01', created__lte: '2026-10-02' }],
  ])(
    'when MongoDB cannot be reached, then a report of %s fails as unavailable (503), not as an internal error',
    async (_, body) => {
      const client = new MongoClient('mongodb://127.0.0.1:1', { serverSelectionTimeoutMS: 300, connectTimeoutMS: 300 });
      try {
        const source = new PlannedCountSource(client.db('nowhere'), {
          prefix: 'events',
          maxRangeDays: 10,
          concurrency: 2,
          queryTimeoutMs: 1000,
        });
        await expect(source.count(readPlanOf(parseReportRequest(body, { maxRangeDays: 10 })))).rejects.toBeInstanceOf(
          UnavailableError,
        );
      } finally {
        await client.close();
      }
    },
  );

  test('when the database has no buckets, then the report is empty and no bucket is read', async () => {
    const client = await MongoClient.connect(process.env.MONGO_URL!);
    try {
      const read: number[] = [];
      const source = new PlannedCountSource(client.db(uniqueName('reports_empty')), {
        prefix: 'events',
        maxRangeDays: 10,
        concurrency: 2,
        queryTimeoutMs: 1000,
        onBuckets: (n) => read.push(n),
      });
      expect(await source.count(readPlanOf(parseReportRequest({ owner_id: '1' }, { maxRangeDays: 10 })))).toEqual([]);
      expect(read).toEqual([0]);
    } finally {
      await client.close();
    }
  });
});
