/** Reads counts back through the public report API (POST /api/v1/events/), as a report consumer would. */
export class ReportReader {
  private constructor(
    private readonly base: string,
    private readonly apiKey: string,
    private readonly ownerId: string,
  ) {}

  /** Issues an API key scoped to the owner through the operator endpoint. */
  static async create(base: string, adminToken: string, ownerId: string): Promise<ReportReader> {
    const res = await fetch(`${base}/admin/v1/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ owner_ids: [ownerId] }),
    });
    if (res.status !== 201 && res.status !== 200) throw new Error(`api key: ${res.status} ${await res.text()}`);
    return new ReportReader(base, ((await res.json()) as { api_key: string }).api_key, ownerId);
  }

  private async report(body: Record<string, unknown>): Promise<{ value: number; content_id?: string }[]> {
    const res = await fetch(`${this.base}/api/v1/events/?api_key=${encodeURIComponent(this.apiKey)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ owner_id: this.ownerId, ...body }),
    });
    if (res.status !== 200) throw new Error(`report: ${res.status} ${await res.text()}`);
    return (await res.json()) as { value: number; content_id?: string }[];
  }

  /** Every counted event of the owner. */
  async total(): Promise<number> {
    return (await this.report({})).reduce((sum, row) => sum + row.value, 0);
  }

  /** How often each of these content ids is counted (absent: 0), asked 100 at a time (the filter's list limit). */
  async countsByContentId(ids: string[]): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    for (let i = 0; i < ids.length; i += 100) {
      for (const row of await this.report({ content_id: ids.slice(i, i + 100), group_by: 'content_id' })) {
        counts.set(row.content_id!, (counts.get(row.content_id!) ?? 0) + row.value);
      }
    }
    return counts;
  }
}
