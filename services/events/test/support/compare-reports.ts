import { ValidationError } from '@cm/platform';
import type { ApiKeyPrincipal } from '../../src/api-keys/api-key-service';
import { randomReportBody } from './random-report';
import { OWNERS, type RollupFixture } from './rollup-fixture';

const caller: ApiKeyPrincipal = { id: 'compare', ownerIds: new Set(OWNERS) };

/** One report from both services of the fixture; a refused query answers with its details. */
export async function bothAnswers(
  f: RollupFixture,
  body: Record<string, unknown>,
): Promise<{ rolled: unknown; raw: unknown }> {
  const answer = async (run: () => Promise<unknown>) => {
    try {
      return await run();
    } catch (err) {
      if (err instanceof ValidationError) return { error: err.details };
      throw err;
    }
  };
  const [rolled, raw] = await Promise.all([
    answer(() => f.rolled.report(caller, body)),
    answer(() => f.raw.report(caller, body)),
  ]);
  return { rolled, raw };
}

/** Random reports over [from, to): each planned over rollups must equal the raw-only one; returns the rows seen. */
export async function expectRandomReportsEqualRaw(
  f: RollupFixture,
  random: () => number,
  from: number,
  to: number,
  queries: number,
): Promise<number> {
  let rows = 0;
  for (let i = 0; i < queries; i++) {
    const body = randomReportBody(random, from, to);
    const { rolled, raw } = await bothAnswers(f, body);
    if (JSON.stringify(rolled) !== JSON.stringify(raw)) {
      throw new Error(
        `query ${i}: ${JSON.stringify(body)}\nrollups: ${JSON.stringify(rolled).slice(0, 2000)}\nraw:     ${JSON.stringify(raw).slice(0, 2000)}`,
      );
    }
    if (Array.isArray(raw)) rows += raw.length;
  }
  return rows;
}
