import { UnavailableError } from '@cm/platform';
import { unitId, type UnitRef } from '../../rollups/rollup-units';
import { DAY_MS, HOUR_MS } from '../../storage/time-units';
import { LostCellsError, refuseLostSpans, type LostSpanTerms } from './lost-spans';

const DAY = Date.parse('2026-10-20T00:00:00Z');
const HOUR: UnitRef = { level: 0, start: DAY + 5 * HOUR_MS };
const DAY_UNIT: UnitRef = { level: 4, start: DAY };
const BLOCK: UnitRef = { level: 9, start: Math.floor(DAY / (32 * DAY_MS)) * 32 * DAY_MS };

function terms(refused: UnitRef[], written: number[], rawKeptFrom: number | undefined): LostSpanTerms {
  return { refused: new Map(refused.map((u) => [unitId(u), u])), written: new Set(written), rawKeptFrom };
}

function refusal(run: () => void): LostCellsError | undefined {
  try {
    run();
    return undefined;
  } catch (err) {
    if (err instanceof LostCellsError) return err;
    throw err;
  }
}

describe('refuseLostSpans', () => {
  const past = DAY + 10 * DAY_MS;

  test('when a raw read past retention holds a written hour of a refused unit, then the report is refused (503) naming the smallest such unit', () => {
    const err = refusal(() =>
      refuseLostSpans([{ from: DAY, to: DAY + DAY_MS }], terms([BLOCK, DAY_UNIT, HOUR], [HOUR.start], past)),
    );
    expect(err).toBeInstanceOf(UnavailableError);
    expect(err!.status).toBe(503);
    expect(err!.unit).toEqual(HOUR);
    expect(err!.message).toContain(unitId(HOUR));
    expect(err!.retryAfterSeconds).toBeGreaterThan(1);
  });

  test('when the raw read only touches the written hour at a second-precision edge, then it is still refused', () => {
    const edge = HOUR.start + HOUR_MS - 1000;
    expect(
      refusal(() => refuseLostSpans([{ from: edge, to: edge + 500 }], terms([DAY_UNIT], [HOUR.start], past))),
    ).toBeDefined();
  });

  test.each([
    ['the raw events are kept', [{ from: DAY, to: DAY + DAY_MS }], [DAY_UNIT], [HOUR.start], DAY],
    ['no retention applies', [{ from: DAY, to: DAY + DAY_MS }], [DAY_UNIT], [HOUR.start], undefined],
    ['no unit was refused', [{ from: DAY, to: DAY + DAY_MS }], [], [HOUR.start], past],
    ['the hours read were never written', [{ from: DAY, to: DAY + DAY_MS }], [BLOCK], [DAY + DAY_MS], past],
    [
      'the written hour is outside every refused unit',
      [{ from: DAY, to: DAY + 2 * DAY_MS }],
      [DAY_UNIT],
      [DAY + DAY_MS],
      past,
    ],
    ['the raw read does not reach the written hour', [{ from: DAY, to: HOUR.start }], [DAY_UNIT], [HOUR.start], past],
  ] as Array<[string, Array<{ from: number; to: number }>, UnitRef[], number[], number | undefined]>)(
    'when %s, then the plan is not refused',
    (_label, raw, refused, written, rawKeptFrom) => {
      expect(refusal(() => refuseLostSpans(raw, terms(refused, written, rawKeptFrom)))).toBeUndefined();
    },
  );

  test('when the written hour lies on a day whose raw events are kept, then it is read, even inside a refused unit', () => {
    const keptFrom = DAY + DAY_MS;
    const laterHour = DAY + DAY_MS + 3 * HOUR_MS;
    expect(
      refusal(() => refuseLostSpans([{ from: DAY, to: DAY + 2 * DAY_MS }], terms([BLOCK], [laterHour], keptFrom))),
    ).toBeUndefined();
  });
});
