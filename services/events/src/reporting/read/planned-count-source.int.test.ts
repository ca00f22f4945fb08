import { MongoClient } from 'mongodb';
import { UnavailableError } from '@cm/platform';
import { uniqueName } from '@cm/testkit';
import { parseReportRequest } from '../request/parse-report-request';
import { PlannedCountSource } from './planned-count-source';
import { readPlanOf } from './read-plan';

describe('PlannedCountSource', () => {
  test('when MongoDB cannot be reached, then the report fails as unavailable (503), not as an internal error', async () => {
    const client = new MongoClient('mongodb://127.0.0.1:1', { serverSelectionTimeoutMS: 300, connectTimeoutMS: 300 });
    try {
      const source = new PlannedCountSource(client.db('nowhere'), {
        prefix: 'events',
        maxRangeDays: 10,
        concurrency: 2,
        queryTimeoutMs: 1000,
      });
      await expect(
        source.count(readPlanOf(parseReportRequest({ owner_id: '1' }, { maxRangeDays: 10 }))),
      ).rejects.toBeInstanceOf(UnavailableError);
    } finally {
      await client.close();
    }
  });

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
