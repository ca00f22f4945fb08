import { ValidationError } from '@cm/platform';
import { eventSchema, parsePixelEvent, withinLimits } from './pixel-params';
import { parseParams } from './pixel-request';

const parse = (qs: string) => parsePixelEvent(parseParams(`owner_id=1&name=a&${qs}`), undefined);
const detailsOf = (qs: string): unknown => {
  try {
    parse(qs);
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return (err as ValidationError).details;
  }
  throw new Error(`expected ${qs} to be refused`);
};

const RANGE = {
  engaged_ms: 'engaged_ms must be an integer from 0 to 3600000, in plain digits',
  scroll_depth: 'scroll_depth must be an integer from 0 to 100, in plain digits',
  value: 'value must be an integer from 0 to 1000000000000, in plain digits',
};

describe('pixel measures (engaged_ms, scroll_depth, value)', () => {
  test('when all three are given at their limits, then they are numbers on the event and none is metadata', () => {
    const event = parse('engaged_ms=3600000&scroll_depth=100&value=1000000000000&note=x');
    expect(event.measures).toEqual({ engaged_ms: 3_600_000, scroll_depth: 100, value: 1e12 });
    expect(event.metadata).toEqual({ note: 'x' });
  });

  test('when some are given, then only those are on the event; when none is, then the event has no measures', () => {
    expect(parse('scroll_depth=0').measures).toEqual({ scroll_depth: 0 });
    expect(parse('value=1999&engaged_ms=0').measures).toEqual({ engaged_ms: 0, value: 1999 });
    expect(parse('cb=1').measures).toBeUndefined();
    expect('measures' in parse('cb=1')).toBe(false);
  });

  const BAD = [
    ['negative', '-1'],
    ['signed', '+1'],
    ['fractional', '1.5'],
    ['a trailing dot', '1.'],
    ['an exponent', '1e3'],
    ['hexadecimal', '0x10'],
    ['a leading zero', '01'],
    ['two zeros', '00'],
    ['a leading space', ' 1'],
    ['a trailing space', '1 '],
    ['an encoded space', '1%20'],
    ['a NUL', '1%00'],
    ['not a number', 'abc'],
    ['Infinity', 'Infinity'],
    ['NaN', 'NaN'],
    ['full-width digits', '%EF%BC%91'],
    ['Arabic-Indic digits', '%D9%A1'],
    ['huge', '9'.repeat(400)],
    ['beyond the safe integers', '99999999999999999999'],
  ] as const;

  test.each(['engaged_ms', 'scroll_depth', 'value'] as const)(
    'when %s is negative, fractional, an exponent, padded, not digits or huge, then it is refused naming it, once',
    (name) => {
      for (const [what, text] of BAD) {
        expect([what, detailsOf(`${name}=${text}`)]).toEqual([what, [{ field: name, message: RANGE[name] }]]);
      }
    },
  );

  test.each([
    ['engaged_ms', '3600001'],
    ['scroll_depth', '101'],
    ['scroll_depth', '1000'],
    ['value', '1000000000001'],
  ] as const)('when %s is %s (past its limit), then it is refused naming it', (name, text) => {
    expect(detailsOf(`${name}=${text}`)).toEqual([{ field: name, message: RANGE[name] }]);
  });

  test.each(['engaged_ms', 'scroll_depth', 'value'])(
    'when %s is empty or repeated, then the message says so',
    (name) => {
      expect(detailsOf(`${name}=`)).toEqual([{ field: name, message: `${name} must not be empty` }]);
      expect(detailsOf(`${name}=1&${name}=1`)).toEqual([{ field: name, message: `${name} must be given once` }]);
    },
  );

  test('when value is not a number (it was free metadata before), then it is refused, and a number is never metadata', () => {
    expect(detailsOf('value=premium')).toEqual([{ field: 'value', message: RANGE.value }]);
    expect(parse('value=12').metadata).toEqual({});
  });

  test('when several are bad, then each is named once', () => {
    expect(detailsOf('engaged_ms=-1&scroll_depth=1e2&value=x')).toEqual([
      { field: 'engaged_ms', message: RANGE.engaged_ms },
      { field: 'scroll_depth', message: RANGE.scroll_depth },
      { field: 'value', message: RANGE.value },
    ]);
  });
});

describe('the fast check of the measures', () => {
  // mulberry32, seeded: the same inputs on every run, so a failure reproduces
  let a = 20261122;
  const random = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(random() * n);
  // digits at and across the range, and the near misses a sender could try
  const measure = (max: number): unknown =>
    random() < 0.4
      ? undefined
      : [
          '0',
          String(max),
          String(max - 1),
          String(int(max + 1)),
          String(max + 1),
          String(max + 1 + int(max)),
          `0${int(10)}`,
          '00',
          '9'.repeat(String(max).length + int(3)),
          `-${int(10)}`,
          `+${int(10)}`,
          `${int(10)}.5`,
          `${int(10)}.`,
          `${1 + int(9)}e2`,
          ` ${int(10)}`,
          `${int(10)} `,
          '\u0661',
          'NaN',
          '',
          ['1', '2'],
        ][int(20)];

  test('when thousands of hits with measures near the limits are checked, then it never accepts what Joi refuses, and accepts the valid ones', () => {
    let agreedValid = 0;
    let agreedInvalid = 0;
    for (let i = 0; i < 5000; i++) {
      const input: Record<string, unknown> = { owner_id: '42', name: 'engagement' };
      for (const [name, max] of [
        ['engaged_ms', 3_600_000],
        ['scroll_depth', 100],
        ['value', 1e12],
      ] as const) {
        const v = measure(max);
        if (v !== undefined) input[name] = v;
      }
      const fast = withinLimits(input, []);
      const joi = eventSchema.validate({ ...input, metadata: {} }).error === undefined;
      if (fast && !joi) throw new Error(`the fast check accepted what Joi refuses: ${JSON.stringify(input)}`);
      if (fast && joi) agreedValid++;
      if (!fast && !joi) agreedInvalid++;
    }
    expect(agreedValid).toBeGreaterThan(500);
    expect(agreedInvalid).toBeGreaterThan(500);
  });
});
