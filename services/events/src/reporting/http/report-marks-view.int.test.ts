import { newOwnerId, startReportingHarness, type ReportingHarness } from '../../../test/support/reporting-harness';

const owner = newOwnerId();
const body = {
  owner_id: owner,
  created__gte: '2026-11-01 00:00:00',
  created__lte: '2026-11-30 23:59:59',
  group_by: 'content_id',
};

/** `events_report_marks_lookups_total` by source, from the process's /metrics. */
async function lookups(h: ReportingHarness): Promise<{ view: number; store: number }> {
  const text = (await h.request('GET', '/metrics')).body as string;
  const of = (source: string) =>
    Number(new RegExp(`events_report_marks_lookups_total\\{source="${source}"[^}]*\\} (\\d+)`).exec(text)?.[1] ?? 0);
  return { view: of('view'), store: of('store') };
}

async function askTwice(h: ReportingHarness): Promise<unknown[]> {
  const { api_key: key } = await h.createKey([owner]);
  await h.insertEvents([
    { owner_id: owner, content_id: 'c1', created: new Date('2026-11-18T10:00:00Z') },
    { owner_id: owner, content_id: 'c2', created: new Date('2026-11-19T12:00:00Z') },
  ]);
  const answers: unknown[] = [];
  for (let i = 0; i < 2; i++) {
    const res = await h.report(key, body);
    expect(res.status).toBe(200);
    answers.push(res.body);
  }
  return answers;
}

describe('the marks reports plan with', () => {
  test('when the same report is asked again within REPORT_MARKS_MAX_AGE_MS, then its marks come from the view and the answer is the same', async () => {
    const h = await startReportingHarness({ REPORT_MARKS_MAX_AGE_MS: '10000' });
    try {
      const [first, second] = await askTwice(h);
      expect(second).toEqual(first);
      expect(first).toHaveLength(2);
      const counted = await lookups(h);
      expect(counted.store).toBeGreaterThan(0);
      expect(counted.view).toBeGreaterThan(0);
    } finally {
      await h.stop();
    }
  });

  test('when REPORT_MARKS_MAX_AGE_MS is 0, then every report reads its marks from the store', async () => {
    const h = await startReportingHarness({ REPORT_MARKS_MAX_AGE_MS: '0' });
    try {
      const [first, second] = await askTwice(h);
      expect(second).toEqual(first);
      const counted = await lookups(h);
      expect(counted.view).toBe(0);
      expect(counted.store).toBeGreaterThanOrEqual(2);
    } finally {
      await h.stop();
    }
  });
});
